// Graphs across nodes that plan late (src/state/late_plans.h), as mesh and
// function-space set-up make them: created like a one-node graph (linear,
// no node lists, planners or agreement), they run their first two blocking
// calls linear and plan at the third, if they make one (NBRCOLL_SHORT_GRAPHS=2
// in these runs; 8 by default). Every call here,
// before, at and after that third call, blocking and nonblocking, on
// duplicates made before and after it, on a graph over half the processes
// (which plans at creation), with nonblocking calls in flight while the
// graph plans and nonblocking calls repeated on the same buffers across it
// (their kept messages are the linear plan's), must fill its receive area
// (guard bytes around it) exactly as the closed form says. With
// NBRCOLL_DEBUG=trace check_short_lived.sh reads rank 0's set-up lines
// phase by phase: no graph plans in the short-lived phases, every graph
// plans once in the long-lived one; with one rank asking for planning at
// creation (NBRCOLL_SHORT_GRAPHS=0), every creation plans and none later.
// --keep-at-finalize leaves two graphs of phase 3 unfreed at MPI_Finalize,
// their planning in flight. --staged (under the default
// NBRCOLL_SHORT_GRAPHS) makes graphs of 1 to 11 calls instead, each freed
// between two of its planning's steps (see main).
// --thread-multiple starts MPI as mpi4py does (each parent communicator
// then keeps its own creation line: src/state/creation_line.h);
// --two-threads also makes two threads create short-lived graphs at once,
// one from a duplicate of MPI_COMM_WORLD, the other from a duplicate of
// that duplicate, and from duplicates of those made on the way, their
// creations interleaved differently on every rank; each graph must be set
// up without agreement exactly while its parent's line, handed down from
// MPI_COMM_WORLD's through the duplicates, holds serials (a model of the
// lines from src/state/line_serials.h). A hang fails by the timeout.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "state/line_serials.h"
#include "state/tag_blocks.h"
#include "support/introspect.h"
#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"

namespace {

using namespace nbt;

const TypePair& ints() {
  static const TypePair pair{
      "int", {MPI_INT, {{0, sizeof(int)}}, sizeof(int)}, {MPI_INT, {{0, sizeof(int)}}, sizeof(int)}};
  return pair;
}

// Whether the graph communicators span nodes (NBRCOLL_RANKS_PER_NODE below
// the world's size): only then do they plan at all.
bool g_across = false;

// nbrcoll holds every plan for `comm` exactly when the late planning says it
// must after `calls` blocking calls on this handle (src/state/late_plans.h):
// a graph of every process across nodes plans at the call after the first
// calls_before_late_plans(), at creation where that is 0; on one node never.
// Read from nbrcoll's state, not from its trace, whose lines the launcher
// may cut when ranks write at once.
void expect_plans(MPI_Comm comm, int calls, const std::string& what) {
  const int k = nbrcoll::calls_before_late_plans();
  const bool want = g_across && (k == 0 || calls > k);
  check(nbrcoll::holds_every_plan(comm) == want,
        what + ": " + (want ? "no plans" : "plans") + " after " + std::to_string(calls) + " blocking calls");
}

// A call of `kind` on `g` with `count` ints per block.
Call int_call(Kind kind, const Graph& g, int count, unsigned salt = 0) {
  Call c;
  c.kind = kind;
  c.graph = &g;
  c.types = &ints();
  c.count = count;
  c.salt = salt;
  return c;
}

// `calls` blocking calls (allgather and alltoallv in turn) and one
// nonblocking alltoall, each checked against the closed form.
void exercise(const Graph& g, MPI_Comm comm, int calls, const std::string& what) {
  const Kind kinds[] = {Kind::allgather, Kind::alltoallv};
  for (int i = 0; i < calls; ++i) {
    Run run(int_call(kinds[i % 2], g, 1 + i % 3, static_cast<unsigned>(i)));
    check(post(run, false, comm, nullptr) == MPI_SUCCESS, what + ": blocking call " + std::to_string(i) + " failed");
    run.verify(what + ", blocking call " + std::to_string(i));
  }
  Run run(int_call(Kind::alltoall, g, 2));
  MPI_Request req = MPI_REQUEST_NULL;
  check(post(run, false, comm, &req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
        what + ": nonblocking call failed");
  run.verify(what + ", nonblocking call");
}

// One graph over every process, from `parent`: made, called, freed unless
// `keep` takes it (a duplicate too, every third round). With `line`, the
// model of the parent's creation line under MPI_THREAD_MULTIPLE: set up
// without agreement exactly while the line has a serial left, which it
// draws; once out, the creation agrees and reserves kLineSerials more.
void round_of(int round, int calls, std::vector<MPI_Comm>* keep = nullptr, MPI_Comm parent = MPI_COMM_WORLD,
              nbrcoll::LineSerials* line = nullptr) {
  const Graph g = random_graph(g_size, "round " + std::to_string(round), 0.5, 100U + static_cast<unsigned>(round),
                               round % 2 == 0, round % 3 == 0, round % 4 == 1);
  MPI_Comm comm = create_adjacent(g, g_rank, parent);
  check(comm != MPI_COMM_NULL, g.name + ": creation");
  expect_plans(comm, 0, g.name);
  if (line != nullptr) {
    const bool drawn = line->next_serial < line->end_serial;
    check(nbrcoll::set_up_without_agreement(comm) == drawn,
          g.name + (drawn ? ": agreed although its parent's line had serials"
                          : ": no agreement from a line without serials"));
    // An agreement reserves serials whose value no rank needs here.
    if (drawn)
      ++line->next_serial;
    else
      line->end_serial = line->next_serial + nbrcoll::kLineSerials;
  }
  exercise(g, comm, calls, g.name);
  expect_plans(comm, calls, g.name);
  if (round % 3 == 2) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &dup);
    exercise(g, dup, calls, g.name + " (duplicate)");
    expect_plans(dup, calls, g.name + " (duplicate)");
    MPI_Comm_free(&dup);
  }
  if (keep != nullptr) {
    keep->push_back(comm);
    return;
  }
  MPI_Comm_free(&comm);
}

// A graph over the even world ranks only: not of every process, so it
// plans at creation.
void half_round(int round) {
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(half, &rank);
  MPI_Comm_size(half, &size);
  Graph g =
      random_graph(size, "half " + std::to_string(round), 0.7, 300U + static_cast<unsigned>(round), true, true, false);
  g.self = rank;
  const auto& in = g.in[static_cast<std::size_t>(rank)];
  const auto& out = g.out[static_cast<std::size_t>(rank)];
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(half, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
  exercise(g, comm, 1, g.name);
  MPI_Comm_free(&comm);
  MPI_Comm_free(&half);
}

// A graph whose third blocking call plans it while nonblocking calls of
// both kinds are in flight on it, after nonblocking calls repeated on the
// same buffers (kept messages of the linear plan) that repeat again after
// it; a duplicate made before it plans keeps the linear graph and plans at
// its own third blocking call. `reversed`: made from MPI_COMM_WORLD's
// processes in reverse order, so that the graph's ranks are not the
// processes' world ranks (the node lists travel between world ranks).
void across_planning(int round, bool reversed) {
  MPI_Comm parent = MPI_COMM_WORLD;
  if (reversed) MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - 1 - g_rank, &parent);
  Graph g = random_graph(g_size, "across " + std::to_string(round) + (reversed ? " reversed" : ""), 0.6,
                         500U + static_cast<unsigned>(round), round % 2 == 0, true, false);
  g.self = reversed ? g_size - 1 - g_rank : g_rank;
  MPI_Comm comm = create_adjacent(g, g.self, parent);
  check(comm != MPI_COMM_NULL, g.name + ": creation");
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(comm, &dup);
  Run same(int_call(Kind::alltoallv, g, 3));
  const auto repeat_nonblocking = [&](unsigned salt, const std::string& what) {
    same.refill(salt);
    MPI_Request req = MPI_REQUEST_NULL;
    check(post(same, false, comm, &req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          what + ": failed");
    same.verify(what);
  };
  for (unsigned i = 0; i < 3; ++i) repeat_nonblocking(i + 1, g.name + ", repeated nonblocking call before planning");
  exercise(g, comm, 2, g.name + " (linear)");
  expect_plans(comm, 2, g.name);
  // In flight while the third blocking call plans.
  Run a(int_call(Kind::alltoall, g, 2, 7));
  Run b(int_call(Kind::allgather, g, 2, 8));
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  check(post(a, false, comm, &reqs[0]) == MPI_SUCCESS && post(b, false, comm, &reqs[1]) == MPI_SUCCESS,
        g.name + ": nonblocking calls before planning failed");
  exercise(g, comm, 3, g.name + " (planning at the third)");
  expect_plans(comm, 5, g.name);
  expect_plans(dup, 0, g.name + " (duplicate made before planning)");
  check(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, g.name + ": calls in flight failed");
  a.verify(g.name + ", alltoall in flight while planning");
  b.verify(g.name + ", allgather in flight while planning");
  for (unsigned i = 0; i < 3; ++i) repeat_nonblocking(10 + i, g.name + ", repeated nonblocking call after planning");
  exercise(g, dup, 4, g.name + " (duplicate made before planning)");
  expect_plans(dup, 4, g.name + " (duplicate made before planning)");
  MPI_Comm_free(&dup);
  MPI_Comm_free(&comm);
  if (reversed) MPI_Comm_free(&parent);
}

// A line between the phases, in rank 0's stderr with its trace lines
// (check_short_lived.sh reads them in order).
void phase(int n) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 0) std::fprintf(stderr, "short_lived: phase %d\n", n);
  std::fflush(stderr);
}

// Short-lived graphs from `parent` (whose line `line` models), made while
// another thread makes its own from another parent: a pause that differs
// by rank, thread and round interleaves the two threads' creations
// differently on every rank. Every seventh round the graph comes from a
// new duplicate of `parent`, which takes its line's serials from
// parent's as the other thread goes on.
void thread_rounds(int thread, MPI_Comm parent, nbrcoll::LineSerials* line) {
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(300 * ((g_rank + thread + i) % 3)));
    if (i % 7 == 3) {
      MPI_Comm dup = MPI_COMM_NULL;
      MPI_Comm_dup(parent, &dup);
      nbrcoll::LineSerials dup_line;
      if (line != nullptr) dup_line = nbrcoll::take_for_duplicate(*line);
      round_of(1000 * (thread + 1) + i, i % 3, nullptr, dup, line != nullptr ? &dup_line : nullptr);
      MPI_Comm_free(&dup);
      continue;
    }
    round_of(1000 * (thread + 1) + i, i % 3, nullptr, parent, line);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // --one-plans-early: world rank 1 sets NBRCOLL_SHORT_GRAPHS=0 (read at
  // MPI_Init, its rank from the launcher): the processes agree on the
  // least, so every graph plans at creation, on every rank alike.
  const char* launched_as = std::getenv("OMPI_COMM_WORLD_RANK");
  if (launched_as == nullptr) launched_as = std::getenv("PMI_RANK");
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--one-plans-early") == 0 && launched_as != nullptr && std::strcmp(launched_as, "1") == 0)
      setenv("NBRCOLL_SHORT_GRAPHS", "0", 1);
  }
  // Only rank 0 traces (check_short_lived.sh reads rank 0's lines): with no
  // other process writing at once, the launcher cannot cut its lines in two,
  // so the script can count them exactly.
  if (launched_as != nullptr && std::strcmp(launched_as, "0") != 0) setenv("NBRCOLL_DEBUG", "warn", 1);
  bool threads = false;
  bool two_threads = false;
  for (int i = 1; i < argc; ++i) {
    threads = threads || std::strcmp(argv[i], "--thread-multiple") == 0 || std::strcmp(argv[i], "--two-threads") == 0;
    two_threads = two_threads || std::strcmp(argv[i], "--two-threads") == 0;
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  begin();
  const char* per_node = std::getenv("NBRCOLL_RANKS_PER_NODE");
  g_across = per_node != nullptr && std::atoi(per_node) > 0 && std::atoi(per_node) < g_size;
  if (threads && provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) std::printf("skipped: the MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
    MPI_Finalize();
    return 77;
  }
  if (two_threads) {
    // MPI_COMM_WORLD's line: the upper half of the serials, three quarters
    // of it for its duplicates (src/state/line_serials.h, creation_line.h).
    int* tag_ub = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
    const std::int64_t serials = nbrcoll::graph_serials(found != 0 ? *tag_ub : 32767);
    nbrcoll::LineSerials world = nbrcoll::line_over(serials / 2, serials);
    MPI_Comm parents[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    nbrcoll::LineSerials lines[2];
    // Two nonblocking duplicates, waited for in the reverse order: the MPI
    // copies attributes as MPI_Comm_idup starts, so the lines follow the
    // order the idups start in (the one never used takes the first share).
    MPI_Comm unused = MPI_COMM_NULL;
    MPI_Request started[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Comm_idup(MPI_COMM_WORLD, &unused, &started[0]);
    nbrcoll::take_for_duplicate(world);
    MPI_Comm_idup(MPI_COMM_WORLD, &parents[0], &started[1]);
    lines[0] = nbrcoll::take_for_duplicate(world);
    MPI_Wait(&started[1], MPI_STATUS_IGNORE);
    MPI_Wait(&started[0], MPI_STATUS_IGNORE);
    MPI_Comm_dup(parents[0], &parents[1]);
    lines[1] = nbrcoll::take_for_duplicate(lines[0]);
    // Open MPI 4.1 sets up its topology framework at the first graph
    // creation, which two threads cannot make at once (a crash inside
    // PMPI_Dist_graph_create_adjacent): one graph first, alone.
    // Graphs that plan at creation (NBRCOLL_SHORT_GRAPHS=0 across nodes) always agree.
    const bool model = !g_across || nbrcoll::calls_before_late_plans() > 0;
    round_of(0, 1, nullptr, MPI_COMM_WORLD, model ? &world : nullptr);
    phase(1);
    std::thread first(thread_rounds, 0, parents[0], model ? &lines[0] : nullptr);
    std::thread second(thread_rounds, 1, parents[1], model ? &lines[1] : nullptr);
    first.join();
    second.join();
    phase(2);
    MPI_Comm_free(&parents[0]);
    MPI_Comm_free(&parents[1]);
    MPI_Comm_free(&unused);
    return finish();
  }
  int round = 0;
  bool keep_two = false;
  bool staged = false;
  for (int i = 1; i < argc; ++i) {
    keep_two = keep_two || std::strcmp(argv[i], "--keep-at-finalize") == 0;
    staged = staged || std::strcmp(argv[i], "--staged") == 0;
  }
  if (staged) {
    // Under the default NBRCOLL_SHORT_GRAPHS (8) the planning steps fall on
    // different calls (late_plans.cpp: node lists posted at the third,
    // received at the fourth, agreement completed at the ninth): graphs
    // made and freed after each number of calls up to 11, and, with
    // --keep-at-finalize, two left alive into MPI_Finalize after 3 and 5
    // calls (node lists and agreement in flight).
    phase(1);
    for (int calls = 1; calls <= 11; ++calls) round_of(round++, calls);
    std::vector<MPI_Comm> left;
    round_of(round++, 3, &left);
    round_of(round++, 5, &left);
    if (!keep_two)
      for (MPI_Comm& c : left) MPI_Comm_free(&c);
    return finish();
  }
  // Short-lived graphs: at most two blocking calls, none plans.
  phase(1);
  for (int i = 0; i < 14; ++i) {
    round_of(round++, i % 3);
    if (i == 6) half_round(round);
  }
  // Long-lived graphs (three or four calls): each plans at its third blocking call.
  phase(2);
  for (int i = 0; i < 14; ++i) round_of(round++, 3 + i % 2);
  for (int i = 0; i < 2; ++i) across_planning(round++, i == 1);
  // Called twice (the last once) and kept alive, as mesh set-up keeps its index maps'
  // graphs for their nonblocking scatters: none plans.
  // Their planning starts two calls before the one it plans at (the
  // second and first here), so the freed ones finish its node lists and
  // agreement in flight, and with --keep-at-finalize the last two (called
  // once and twice) stay alive into MPI_Finalize, which finishes them.
  phase(3);
  std::vector<MPI_Comm> kept;
  for (int i = 0; i < 14; ++i) round_of(round++, 2 - i / 13, &kept);
  phase(4);
  for (std::size_t i = 0; i + (keep_two ? 2 : 0) < kept.size(); ++i) MPI_Comm_free(&kept[i]);
  return finish();
}
