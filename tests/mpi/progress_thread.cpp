// The progress thread (NBRCOLL_PROGRESS=thread, src/call/progress_thread.h)
// as an application sees it:
// - the thread level: MPI_Init_thread at the level named by the first
//   argument (single, funneled, serialized, multiple; "init": MPI_Init)
//   gives exactly that level in `provided` and MPI_Query_thread, though
//   nbrcoll asked the MPI for MPI_THREAD_MULTIPLE, and the main thread is
//   still the main thread;
// - the answers: nonblocking allgather, alltoall and alltoallv on the
//   adversarial graphs (neighbor_case.h: duplicates, self edges,
//   MPI_PROC_NULL, empty neighbourhoods), each with a computation (a sleep,
//   longer on some ranks) between start and wait, every result against
//   the closed form;
// - with --idle-rank DIR KINDS (allgather, alltoall or both, comma
//   separated: the kinds the setting runs on a forwarding plan), progress
//   without the application: world rank 0
//   starts a call on a graph where it only receives, then "computes"
//   without entering MPI until every other rank has completed its wait (a
//   marker file each) or 30 s pass. Under the MPI's own linear exchange
//   rank 0 delays nobody, since nobody needs its blocks; nbrcoll's
//   forwarding plans may have rank 0 scatter the blocks that reach its
//   node, and only progress that does not need rank 0's application thread
//   lets the others finish meanwhile. Fails where they could not. (A
//   linear call of small blocks is the MPI's own messages: under Open MPI
//   4.1.4 the others then wait for rank 0 too, as with the MPI's own
//   collective, and the thread is not woken for it.)
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <list>
#include <string>
#include <thread>
#include <vector>

#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"

namespace {

using namespace nbt;

int level_of(const std::string& name) {
  if (name == "single") return MPI_THREAD_SINGLE;
  if (name == "funneled") return MPI_THREAD_FUNNELED;
  if (name == "serialized") return MPI_THREAD_SERIALIZED;
  return MPI_THREAD_MULTIPLE;
}

void sleep_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

void answers_with_computation(const std::vector<TypePair>& types) {
  for (const Graph& graph : test_graphs()) {
    MPI_Comm g = make_graph(graph);
    for (const Kind kind : {Kind::allgather, Kind::alltoall, Kind::alltoallv}) {
      const std::string what = graph.name + " " + kind_name(kind);
      Run run(Call{kind, &graph, &types[2], 3, 11});
      MPI_Request req = MPI_REQUEST_NULL;
      check(post(run, false, g, &req) == MPI_SUCCESS, what + ": posting");
      sleep_ms(g_rank % 2 == 0 ? 4 : 1);
      check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, what + ": MPI_Wait");
      run.verify(what);
    }
    MPI_Comm_free(&g);
  }
}

constexpr int kIdleSeconds = 30;

std::string marker(const std::string& dir, int rank) {
  return dir + "/done." + std::to_string(rank);
}

// Rank 0 idle outside MPI until the others are done (or 30 s).
void idle_rank(const std::vector<TypePair>& types, const std::string& dir, const std::vector<Kind>& kinds) {
  // Every rank sends to every other but rank 0, which only receives: no
  // rank needs rank 0's blocks, but a plan may have rank 0 scatter what
  // reaches its node.
  Graph others = empty_graph(g_size, "complete graph, rank 0 receiving only");
  for (int s = 1; s < g_size; ++s) {
    for (int d = 0; d < g_size; ++d) {
      if (s != d) add_edge(others, s, d);
    }
  }
  MPI_Comm g = make_graph(others);
  for (const Kind kind : kinds) {
    const std::string what = std::string("rank 0 idle, ") + kind_name(kind);
    if (g_rank == 0) {
      for (int r = 1; r < g_size; ++r) std::remove(marker(dir, r).c_str());
    }
    MPI_Barrier(MPI_COMM_WORLD);
    Run run(Call{kind, &others, &types[0], 1024, 7});
    MPI_Request req = MPI_REQUEST_NULL;
    check(post(run, false, g, &req) == MPI_SUCCESS, what + ": posting");
    if (g_rank == 0) {
      int done = 0;
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(kIdleSeconds);
      while (done < g_size - 1 && std::chrono::steady_clock::now() < until) {
        done = 0;
        for (int r = 1; r < g_size; ++r) done += access(marker(dir, r).c_str(), F_OK) == 0 ? 1 : 0;
        sleep_ms(1);
      }
      check(done == g_size - 1, what + ": " + std::to_string(g_size - 1 - done) +
                                    " of the other ranks could not complete while rank 0 computed outside MPI");
    }
    check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, what + ": MPI_Wait");
    if (g_rank != 0) std::ofstream(marker(dir, g_rank)) << "done\n";
    run.verify(what);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm_free(&g);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string level_name = argc > 1 ? argv[1] : "init";
  int provided = -1;
  if (level_name == "init") {
    MPI_Init(&argc, &argv);
  } else {
    MPI_Init_thread(&argc, &argv, level_of(level_name), &provided);
  }
  begin();
  const int want = level_name == "init" ? MPI_THREAD_SINGLE : level_of(level_name);
  if (level_name != "init")
    check(provided == want, "provided is " + std::to_string(provided) + ", asked " + level_name);
  int queried = -1;
  check(MPI_Query_thread(&queried) == MPI_SUCCESS && queried == want,
        "MPI_Query_thread gives " + std::to_string(queried) + " after asking " + level_name);
  int is_main = 0;
  check(MPI_Is_thread_main(&is_main) == MPI_SUCCESS && is_main != 0, "the main thread is not the main thread");
  expect_interposed({"MPI_Ineighbor_allgather", "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv"});
  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> types = make_type_pairs(owned);
  answers_with_computation(types);
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--idle-rank") == 0 && i + 2 < argc) {
      const std::string dir = argv[++i];
      const std::string names = argv[++i];
      std::vector<Kind> kinds;
      if (names.find("allgather") != std::string::npos) kinds.push_back(Kind::allgather);
      if (names.find("alltoall") != std::string::npos) kinds.push_back(Kind::alltoall);
      idle_rank(types, dir, kinds);
    }
  }
  return finish(owned);
}
