// A soak: many calls and many graph lifetimes in one run, every result
// against its closed form, and what each process holds at the end against
// what it held early on.
//
// Calls (--calls, 260,000 per rank): on four graphs (random with duplicate
// and self edges by MPI_Dist_graph_create_adjacent, a ring by
// MPI_Dist_graph_create, whose lists the MPI orders, a periodic 2-D grid
// by MPI_Cart_create, and a random graph inside each emulated node), every
// kind (allgather, allgatherv, alltoall, alltoallv, alltoallw) in every mode
// the MPI has: blocking; nonblocking, one at a time and two in flight on one
// communicator (completed in reverse order), by each completion call in
// turn; persistent (MPI 4: made, started kRepeat times, freed). Each case
// makes kRepeat calls in a row on the same buffers with new data, so
// nbrcoll's repeats and kept messages are made, started and freed again all
// run long; a round runs every case once.
// Cycles (--cycles, 20,000): a graph made (MPI_Dist_graph_create_adjacent,
// MPI_Dist_graph_create, MPI_Cart_create and MPI_Graph_create in turn; every
// fourth also duplicated), calls on it (blocking twice, in one cycle of
// eight three times, then nonblocking or persistent), freed.
// Every receive area, guard bytes included, must equal its closed form
// (neighbor_case.h; the data follow from the source, the block and a salt
// that changes from call to call) on every call: the same answers
// throughout.
// Against the early point of the calls (the first round end from --early
// calls on, 1,000, at which every tuner of auto's on every rank and graph
// is closed: until then a tuner that tries again changes which calls keep
// their messages, so the cache below may still grow; with a fixed point of
// 24,000 calls, before the last tuners closed at about 71,000 (nonblocking)
// and 141,000 (blocking), it grew by 2 requests on one rank in about one
// run in ten under load; under MPICH on 2 ranks they close at about
// 188,000) and after the first --early-cycles cycles
// (1,000), at the end of each phase (the last whole round), on
// every rank: resident memory (/proc/self/statm) at most 2 MiB more, as many
// open file descriptors (/proc/self/fd), no more MPI handles held by
// nbrcoll (report/held_handles.h; this program is linked with the static
// library to read them). The persistent requests nbrcoll keeps for calls
// that repeat are a cache whose size at a round's end depends on timing
// (which scratch a nonblocking call finds free; one rank read 17, 19 and 21
// at successive round ends under load): for the calls, the handles are the
// most seen over the 5 round ends from the early point and the fewest over
// the last 5, so that only growth fails. With NBRCOLL_REPORT=<file>, world rank 0 reads the
// report after MPI_Finalize: the handles it says were held at MPI_Finalize
// must be those held between cycles (no graph alive).
#include <dirent.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "report/held_handles.h"
#include "support/introspect.h"
#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/report_file.h"
#include "tests/mpi/test_graphs.h"
#include "tests/mpi/topologies.h"

namespace {

using namespace nbt;

constexpr int kRepeat = 4;           // calls in a row of one case
constexpr unsigned kSalts = 16;      // send data patterns, by call
constexpr long kRssSlack = 2 << 20;  // bytes

// Nonblocking calls one at a time (on the same buffers: auto runs them
// linear, and nbrcoll keeps their messages from the third on) or two in
// flight on one communicator (other buffers each, completed in reverse
// order). Persistent where the MPI has the _init calls (MPI 4); Open MPI
// 4.1's MPIX_Neighbor_*_init would join here through post_init.
enum class Mode { blocking, nonblocking, two_in_flight, persistent };
constexpr const char* kModeNames[4] = {"blocking", "nonblocking", "nonblocking two in flight", "persistent"};

std::vector<Mode> modes() {
#if MPI_VERSION >= 4
  return {Mode::blocking, Mode::nonblocking, Mode::two_in_flight, Mode::persistent};
#else
  return {Mode::blocking, Mode::nonblocking, Mode::two_in_flight};
#endif
}

// Passes silently (a counted check) or fails with the message built only then.
template <class Message>
void expect(bool ok, Message message) {
  if (ok)
    ++g_checks;
  else
    check(false, message());
}

// ---- what the process holds --------------------------------------------------

struct Holdings {
  long rss = 0;  // bytes
  long fds = 0;
  nbrcoll::report::HeldHandles handles;
};

long resident_bytes() {
  long pages = 0;
  long resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return resident * sysconf(_SC_PAGESIZE);
}

long open_fds() {
  long n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (const dirent* e = readdir(d)) n += e->d_name[0] != '.' ? 1 : 0;
    closedir(d);
  }
  return n;
}

Holdings holdings() {
  return {resident_bytes(), open_fds(), nbrcoll::report::held()};
}

std::string handles_text(const std::int64_t (&count)[nbrcoll::report::kHandleKinds]) {
  std::string s;
  for (unsigned k = 0; k < nbrcoll::report::kHandleKinds; ++k)
    s += (k == 0 ? "" : ", ") + std::string(nbrcoll::report::kHandleNames[k]) + " " + std::to_string(count[k]);
  return s;
}

// `into`, each kind's count combined with the count held now by `pick`.
template <class Pick>
void fold_held(nbrcoll::report::HeldHandles& into, Pick pick) {
  const nbrcoll::report::HeldHandles now = nbrcoll::report::held();
  for (unsigned k = 0; k < nbrcoll::report::kHandleKinds; ++k) into.count[k] = pick(into.count[k], now.count[k]);
}

// The end of a phase against its early point, on this rank; one line per rank.
void compare(const char* phase, const Holdings& early, const Holdings& end) {
  const std::string at = std::string(phase) + " (rank " + std::to_string(g_rank) + ")";
  std::printf("[rank %d] %s: RSS %.1f -> %.1f MiB (%+ld KiB), fds %ld -> %ld, handles held %s -> %s\n", g_rank, phase,
              static_cast<double>(early.rss) / (1 << 20), static_cast<double>(end.rss) / (1 << 20),
              (end.rss - early.rss) / 1024, early.fds, end.fds, handles_text(early.handles.count).c_str(),
              handles_text(end.handles.count).c_str());
  expect(early.rss > 0 && end.rss <= early.rss + kRssSlack, [&] {
    return at + ": resident memory grew by " + std::to_string((end.rss - early.rss) / 1024) + " KiB (limit 2048)";
  });
  expect(end.fds == early.fds, [&] {
    return at + ": open file descriptors " + std::to_string(early.fds) + " -> " + std::to_string(end.fds);
  });
  bool grew = false;
  for (unsigned k = 0; k < nbrcoll::report::kHandleKinds; ++k) grew |= end.handles.count[k] > early.handles.count[k];
  expect(!grew, [&] {
    return at + ": MPI handles held by nbrcoll " + handles_text(early.handles.count) + " -> " +
           handles_text(end.handles.count);
  });
}

// ---- closed forms, each computed once -------------------------------------------

// The expected receive areas of the calls on long-lived graphs by (what,
// salt): `what` names the call's graph, kind, types and count. Each is
// computed once, all in the first rounds; the cycles' graphs compute theirs
// at every call (kUncached).
using ExpectedKey = std::tuple<std::size_t, unsigned, int>;
std::map<ExpectedKey, std::vector<unsigned char>> g_expected;
constexpr std::size_t kUncached = ~std::size_t{0};

bool matches(std::size_t what, const Call& c, const std::vector<unsigned char>& area) {
  if (what == kUncached) return area == expected_area(c, my_rank(*c.graph));
  const ExpectedKey key{what, c.salt, my_rank(*c.graph)};
  auto it = g_expected.find(key);
  if (it == g_expected.end()) it = g_expected.emplace(key, expected_area(c, my_rank(*c.graph))).first;
  return area == it->second;
}

// Every call's salt: the data change from call to call, in a cycle.
unsigned salt_of(long call) {
  return 1 + static_cast<unsigned>(call % kSalts);
}

struct Counts {
  long by_mode[4] = {};
  long by_kind[5] = {};
  long total = 0;
  void add(Mode m, Kind k, long n = 1) {
    by_mode[static_cast<int>(m)] += n;
    by_kind[static_cast<int>(k)] += n;
    total += n;
  }
};
Counts g_counts;

// One case: its calls through runs[0] (two in flight: and runs[1]), new
// data each, each result checked.
struct Runner {
  std::size_t what;  // the closed forms' key
  Mode mode;
  std::vector<Run> runs;
  MPI_Request persistent = MPI_REQUEST_NULL;
  std::string name;

  void verify(const Run& run, long call, const char* how) {
    expect(matches(what, run.call, run.area), [&] {
      return name + " call " + std::to_string(call) + " (" + how + ", rank " + std::to_string(g_rank) +
             "): the receive area differs from the closed form";
    });
  }

  // Call number `first` (two in flight: and the next, if below `limit`);
  // the calls made.
  int step(MPI_Comm g, long first, long limit) {
    Run& a = runs[0];
    a.refill(salt_of(first));
    const auto how = static_cast<Done>(first % static_cast<long>(Done::count));
    switch (mode) {
      case Mode::blocking:
        expect(post(a, false, g, nullptr) == MPI_SUCCESS, [&] { return name + ": blocking call failed"; });
        verify(a, first, "blocking");
        return 1;
      case Mode::two_in_flight:
        if (first + 1 < limit) return two_in_flight(g, first, how);
        [[fallthrough]];
      case Mode::nonblocking: {
        MPI_Request req = MPI_REQUEST_NULL;
        expect(post(a, false, g, &req) == MPI_SUCCESS && complete(&req, how) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
               [&] { return name + ": nonblocking call or MPI_" + done_name(how) + " failed"; });
        verify(a, first, done_name(how));
        return 1;
      }
      case Mode::persistent: {
#if MPI_VERSION >= 4
        const Done phow = how == Done::testall && !testall_persistent_works() ? Done::testsome : how;
        expect(MPI_Start(&persistent) == MPI_SUCCESS && complete(&persistent, phow) == MPI_SUCCESS &&
                   persistent != MPI_REQUEST_NULL,
               [&] { return name + ": starting or completing (MPI_" + done_name(phow) + ") failed"; });
        verify(a, first, "persistent");
#endif
        return 1;
      }
    }
    return 0;
  }

  // Two calls in flight on `g`, the second completed first.
  int two_in_flight(MPI_Comm g, long first, Done how) {
    Run& a = runs[0];
    Run& b = runs[1];
    b.refill(salt_of(first + 1));
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    expect(post(a, false, g, &req[0]) == MPI_SUCCESS && post(b, false, g, &req[1]) == MPI_SUCCESS,
           [&] { return name + ": nonblocking calls failed"; });
    expect(complete(&req[1], how) == MPI_SUCCESS && complete(&req[0], Done::wait) == MPI_SUCCESS &&
               req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
           [&] { return name + ": completing by MPI_" + done_name(how) + " failed or left a request"; });
    verify(a, first, done_name(how));
    verify(b, first + 1, "Wait");
    return 2;
  }

  // kRepeat calls in a row (a persistent request made first, freed after).
  long block(MPI_Comm g, long first, long limit) {
    long made = 0;
#if MPI_VERSION >= 4
    if (mode == Mode::persistent)
      expect(post_init(runs[0], false, g, &persistent) == MPI_SUCCESS, [&] { return name + ": init failed"; });
#endif
    while (made < kRepeat && first + made < limit) {
      const int n = step(g, first + made, limit);
      g_counts.add(mode, runs[0].call.kind, n);
      made += n;
    }
    if (persistent != MPI_REQUEST_NULL)
      expect(MPI_Request_free(&persistent) == MPI_SUCCESS, [&] { return name + ": freeing the request failed"; });
    return made;
  }
};

Runner make_runner(std::size_t what, Mode mode, const Call& c, const std::string& name) {
  Runner r{what, mode, {}, MPI_REQUEST_NULL, name + " " + kModeNames[static_cast<int>(mode)]};
  r.runs.reserve(2);
  r.runs.emplace_back(c);
  if (mode == Mode::two_in_flight) r.runs.emplace_back(c);
  return r;
}

// The types of a case: int or a strided vector into contiguous ints (packed),
// 3 elements a block; alltoallw: a pair per edge of all of them.
struct Types {
  std::vector<MPI_Datatype> owned;
  std::vector<TypePair> pairs = make_type_pairs(owned);
  std::vector<TypePair> per_edge = pairs;
  Types() { per_edge.push_back(make_subarray_pair(owned)); }
};

Call call_of(Kind kind, const Graph& g, const Types& t, std::size_t turn) {
  Call c{kind, &g, &t.pairs[turn % 2 == 0 ? 1 : 2], 3, 0};
  if (kind == Kind::alltoallw) {
    c.types = &t.per_edge[0];
    c.per_edge_types = &t.per_edge;
    c.shape = static_cast<unsigned>(turn % 3);
  }
  return c;
}

constexpr Kind kKinds[5] = {Kind::allgather, Kind::allgatherv, Kind::alltoall, Kind::alltoallv, Kind::alltoallw};

// ---- phase 1: many calls on a few graphs -------------------------------------------

struct Held {
  Graph graph;
  MPI_Comm comm = MPI_COMM_NULL;
};

// The ring with each rank naming its own out-edges (right, then left).
MPI_Comm dist_graph_ring() {
  const int source = g_rank;
  const int degree = 2;
  const int peers[2] = {(g_rank + 1) % g_size, (g_rank + g_size - 1) % g_size};
  MPI_Comm g = MPI_COMM_NULL;
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, peers, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  return g;
}

// A random graph inside each emulated node (NBRCOLL_RANKS_PER_NODE; without
// it, of every process), over a communicator of the node's processes:
// there auto runs every call linear by its rule, and nbrcoll keeps the
// messages of blocking calls that repeat too.
Held node_graph(MPI_Comm& node) {
  const char* k = std::getenv("NBRCOLL_RANKS_PER_NODE");
  const int per_node = k != nullptr ? std::atoi(k) : 0;
  MPI_Comm_split(MPI_COMM_WORLD, per_node > 0 ? g_rank / per_node : 0, g_rank, &node);
  int size = 0;
  int me = 0;
  MPI_Comm_size(node, &size);
  MPI_Comm_rank(node, &me);
  Held h{random_graph(size, "node-local", 0.7, 91, true, true, false)};
  h.graph.self = me;
  h.comm = create_adjacent(h.graph, me, node);
  return h;
}

// A periodic 2-D grid (reordered as the MPI likes), described in its own ranks.
Held grid() {
  Held h{cartesian_graph("cart-2d-periodic", balanced_dims(2), {1, 1})};
  const std::vector<int> dims = balanced_dims(2);
  const int periods[2] = {1, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims.data(), periods, 1, &h.comm);
  MPI_Comm_rank(h.comm, &h.graph.self);
  return h;
}

void run_calls(long calls, long early, const Types& types) {
  std::deque<Held> graphs;  // stable addresses: the calls point at the graphs
  graphs.push_back({random_graph(g_size, "random-dup-self", 0.5, 48, true, true, false)});
  graphs.back().comm = make_graph(graphs.back().graph);
  graphs.push_back({});
  graphs.back().comm = dist_graph_ring();
  graphs.back().graph = lists_of(graphs.back().comm, "dist-graph-ring");
  graphs.push_back(grid());
  MPI_Comm node = MPI_COMM_NULL;
  graphs.push_back(node_graph(node));

  std::vector<Runner> cases;
  for (const Kind kind : kKinds) {
    for (const Mode mode : modes()) {
      for (const Held& h : graphs) {
        const std::size_t what = cases.size();
        cases.push_back(
            make_runner(what, mode, call_of(kind, h.graph, types, what), h.graph.name + " " + kind_name(kind)));
      }
    }
  }
  // The round's calls: kRepeat per case.
  const long round = static_cast<long>(cases.size()) * kRepeat;
  const long last_end = calls / round * round;
  // The early point's handles: the most over its round end and the next
  // kHandleRounds - 1; the end's: the fewest over the last kHandleRounds.
  // The early point is found as the calls run (every tuner closed), at the
  // latest where its window still ends before the last one begins.
  constexpr long kHandleRounds = 5;
  const long last_window = last_end - (kHandleRounds - 1) * round;
  long early_end = -1;
  long early_window = -1;
  Holdings at_early;
  Holdings at_last;
  const double start = MPI_Wtime();
  long made = 0;
  for (std::size_t turn = 0; made < calls; turn = (turn + 1) % cases.size()) {
    Runner& r = cases[turn];
    made += r.block(graphs[turn % graphs.size()].comm, made, calls);
    if (turn + 1 != cases.size()) continue;
    if (early_end < 0 && made >= early && made + kHandleRounds * round <= last_window) {
      int closed = 1;
      for (const Held& h : graphs) closed &= nbrcoll::tuning_closed(h.comm) ? 1 : 0;
      MPI_Allreduce(MPI_IN_PLACE, &closed, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
      if (closed != 0) {
        early_end = made;
        early_window = made + (kHandleRounds - 1) * round;
        at_early = holdings();
      }
    } else if (early_end >= 0 && made > early_end && made <= early_window) {
      fold_held(at_early.handles, [](auto a, auto b) { return std::max(a, b); });
    }
    if (made == last_window) at_last.handles = nbrcoll::report::held();
    if (made > last_window && made <= last_end)
      fold_held(at_last.handles, [](auto a, auto b) { return std::min(a, b); });
    if (made == last_end) {
      at_last.rss = resident_bytes();
      at_last.fds = open_fds();
    }
  }
  const double seconds = MPI_Wtime() - start;
  for (Held& h : graphs) MPI_Comm_free(&h.comm);
  MPI_Comm_free(&node);
  if (g_rank == 0)
    std::printf(
        "soak: %ld calls per rank on %zu graphs in %.1f s (%ld-call rounds; compared after call %ld, where "
        "every tuner was closed, and %ld)\n",
        made, graphs.size(), seconds, round, early_end, last_end);
  expect(early_end >= 0, [&] {
    return "calls: auto's tuners still open after call " + std::to_string(last_window - kHandleRounds * round) +
           " of " + std::to_string(calls) + " (no early point to compare against)";
  });
  if (early_end >= 0) compare("calls", at_early, at_last);
}

// ---- phase 2: graphs made, called and freed --------------------------------------

struct Shapes {
  Graph random = random_graph(g_size, "cycle-random", 0.4, 77, true, true, false);
  Graph ring;  // in the MPI's order, read at every creation
  Graph grid = cartesian_graph("cycle-cart-2d-periodic", balanced_dims(2), {1, 1});
  GraphCreateRing graph_create;
};

// Cycle n's graph: made by the n-th creator in turn.
MPI_Comm make_shape(Shapes& s, long n, Graph*& g) {
  MPI_Comm c = MPI_COMM_NULL;
  switch (n % 4) {
    case 0:
      g = &s.random;
      return make_graph(s.random);
    case 1:
      // Open MPI 4.1.4 orders the in-lists as the edges arrive: not the
      // same from one creation to the next.
      c = dist_graph_ring();
      s.ring = lists_of(c, "cycle-dist-graph-ring");
      g = &s.ring;
      return c;
    case 2: {
      const std::vector<int> dims = balanced_dims(2);
      const int periods[2] = {1, 1};
      MPI_Cart_create(MPI_COMM_WORLD, 2, dims.data(), periods, 1, &c);
      g = &s.grid;
      break;
    }
    default:
      c = s.graph_create.create();
      g = &s.graph_create.graph;
      break;
  }
  int me = 0;
  MPI_Comm_rank(c, &me);
  expect(g->self < 0 || g->self == me, [&] { return g->name + ": reordered otherwise than before"; });
  g->self = me;
  return c;
}

void run_cycles(long cycles, long early, const Types& types) {
  Shapes shapes;
  Holdings at_early;
  long calls = 0;
  const double start = MPI_Wtime();
  for (long n = 0; n < cycles; ++n) {
    Graph* g = nullptr;
    MPI_Comm comm = make_shape(shapes, n, g);
    MPI_Comm dup = MPI_COMM_NULL;
    if (n % 4 == 3) MPI_Comm_dup(comm, &dup);
    // The creator (n % 4), the kind and the types follow from n in a cycle
    // of 120, the data from n in one of 16.
    const Kind kind = kKinds[(n / 4) % 5];
    const Call c = call_of(kind, *g, types, static_cast<std::size_t>(n / 20 % 6));
    const std::string name = g->name + " " + kind_name(kind) + " cycle " + std::to_string(n);
    // Blocking twice on the same buffers, in one cycle of 8 of each creator
    // three times (a graph of every process across nodes plans at its
    // third under the tests' NBRCOLL_SHORT_GRAPHS=2: 0.7 ms a rank, here),
    // then the cycle's other mode.
    const long blocking_calls = n / 4 % 8 == 0 ? 3 : 2;
    Runner blocking = make_runner(kUncached, Mode::blocking, c, name);
    const Mode other = modes()[1 + static_cast<std::size_t>(n / 2) % (modes().size() - 1)];
    Runner second = make_runner(kUncached, other, c, name);
    MPI_Comm target = dup != MPI_COMM_NULL ? dup : comm;
    calls += blocking.block(target, n, n + blocking_calls);
    calls += second.block(target, n + 3, n + 3 + (other == Mode::two_in_flight ? 2 : 1));
    if (dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
    if (n + 1 == early) at_early = holdings();
  }
  const double seconds = MPI_Wtime() - start;
  if (g_rank == 0)
    std::printf("soak: %ld create/call/free cycles per rank, %ld calls in them, in %.1f s (compared after cycle %ld)\n",
                cycles, calls, seconds, early);
  if (cycles > early) compare("cycles", at_early, holdings());
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  long calls = 260000;
  long cycles = 20000;
  long early = 1000;         // calls: the least; then where every tuner is closed
  long early_cycles = 1000;  // cycles: each frees its graph, so nothing stays warm
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--calls") == 0)
      calls = std::atol(argv[++i]);
    else if (std::strcmp(argv[i], "--cycles") == 0)
      cycles = std::atol(argv[++i]);
    else if (std::strcmp(argv[i], "--early") == 0)
      early = std::atol(argv[++i]);
    else if (std::strcmp(argv[i], "--early-cycles") == 0)
      early_cycles = std::atol(argv[++i]);
  }
  const char* path = report_file();
  if (g_rank == 0 && path != nullptr) std::remove(path);  // a report of an earlier run
  Types types;
  run_calls(calls, early, types);
  run_cycles(cycles, early_cycles, types);
  if (g_rank == 0) {
    std::printf("soak: calls per rank by mode:");
    for (const Mode m : modes())
      std::printf(" %s %ld", kModeNames[static_cast<int>(m)], g_counts.by_mode[static_cast<int>(m)]);
    std::printf("; by kind:");
    for (const Kind k : kKinds) std::printf(" %s %ld", kind_name(k), g_counts.by_kind[static_cast<int>(k)]);
    std::printf("; %ld in all\n", g_counts.total);
  }
  // What the ranks hold with no graph alive: the report at MPI_Finalize must say the same.
  std::int64_t held[nbrcoll::report::kHandleKinds];
  const nbrcoll::report::HeldHandles now = nbrcoll::report::held();
  MPI_Reduce(now.count, held, nbrcoll::report::kHandleKinds, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  for (MPI_Datatype& t : types.owned) MPI_Type_free(&t);
  long totals[2] = {g_checks.load(), g_failures.load()};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (g_rank != 0) return totals[1] == 0 ? 0 : 1;
  if (path != nullptr) {
    const long before = g_failures.load();
    const std::vector<std::string> lines = report_lines(path);
    // nbrcoll ran every call (the ranks make the same calls).
    long reported = 0;
    for (const Kind k : kKinds) {
      for (const long n : numbers_after(lines, std::string(kind_name(k)) + " ")) reported += n;
    }
    check(reported == g_counts.total * g_size,
          "the report counts " + std::to_string(reported) + " calls, not " + std::to_string(g_counts.total * g_size));
    check(numbers_after(lines, "calls handed to the MPI:") == std::vector<long>{0}, "no call handed to the MPI");
    std::printf("soak: the report's %s\n", report_line(lines, "calls by plan:").c_str());
    const std::string line = report_line(lines, "MPI handles still held at finalize");
    const std::string want = handles_text(held);
    check(line.size() >= want.size() && line.compare(line.size() - want.size(), want.size(), want) == 0,
          "the report's handles at MPI_Finalize (" + line + ") against those held with no graph alive (" + want + ")");
    std::printf("soak: held with no graph alive, summed over ranks: %s\n", want.c_str());
    totals[1] += g_failures.load() - before;
  }
  std::printf("%ld checks, %ld failed\n", totals[0], totals[1]);
  return totals[1] == 0 && totals[0] > 0 ? 0 : 1;
}
