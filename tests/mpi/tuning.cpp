// auto's measured choice (src/call/tuning.h, algos/tuner.h) against the
// closed forms: on every test graph (duplicate and self edges,
// MPI_PROC_NULL, empty neighbourhoods) and every kind but alltoallw, with
// a basic and a derived datatype, blocking calls repeat long enough for
// the tuner to try every variant, agree, settle, meet a second size
// (another phase of the program), settle it, and then alternate the two;
// a nonblocking call and a duplicate handle's calls come in between
// (neither may count as one of the tuned handle's calls). Every result is
// checked, guards included. Run with NBRCOLL_TUNE set wide (every variant
// a candidate at every size), so that trials mix variants in every call;
// NBRCOLL_DEBUG=info must show sizes settled.
//
// With the argument `nonblocking` the tuned calls are nonblocking,
// kInFlight at a time, so that calls end after later ones began and
// agreements are reduced across calls; the call between is a blocking one,
// not one of their tuner's. Each graph and kind then takes one of the two
// datatypes, in turn. Run with a progress thread in every process
// (every kind tuned) or under the MPI's progress loop (allgathers tuned
// between linear and leader).
#include <mpi.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"

namespace {

using namespace nbt;

// Enough calls of one size for a trying window (18), a watching gap (18)
// and a second trying window, with a margin; nonblocking calls' agreements
// settle rounds + 10 calls after they are due (call/tuning.h).
constexpr int kPhaseCalls = 60;
constexpr int kNonblockingPhaseCalls = 100;

void blocking_calls(Run& run, MPI_Comm g, int calls, unsigned& salt, const std::string& at) {
  for (int i = 0; i < calls; ++i) {
    run.refill(++salt);
    check(post(run, false, g, nullptr) == MPI_SUCCESS, at + ": call " + std::to_string(i));
    run.verify(at + " call " + std::to_string(i));
  }
}

// Nonblocking calls in flight together, each on buffers of its own.
constexpr int kInFlight = 3;

struct InFlight {
  std::vector<Run> runs;
  std::array<MPI_Request, kInFlight> requests{};
  std::array<std::string, kInFlight> names;
  int next = 0;
  explicit InFlight(const Call& c) {
    runs.reserve(kInFlight);
    for (int i = 0; i < kInFlight; ++i) runs.emplace_back(c);
    requests.fill(MPI_REQUEST_NULL);
  }
  void finish(int i) {
    if (requests[i] == MPI_REQUEST_NULL) return;
    check(MPI_Wait(&requests[i], MPI_STATUS_IGNORE) == MPI_SUCCESS, names[i] + ": its wait");
    runs[static_cast<std::size_t>(i)].verify(names[i]);
  }
  void finish_all() {
    for (int i = 0; i < kInFlight; ++i) finish(i);
  }
};

void nonblocking_calls(InFlight& f, MPI_Comm g, int calls, unsigned& salt, const std::string& at) {
  for (int i = 0; i < calls; ++i) {
    const int k = f.next;
    f.next = (f.next + 1) % kInFlight;
    f.finish(k);  // the oldest call in flight
    Run& run = f.runs[static_cast<std::size_t>(k)];
    run.refill(++salt);
    f.names[k] = at + " call " + std::to_string(i);
    check(post(run, false, g, &f.requests[k]) == MPI_SUCCESS, f.names[k]);
  }
}

void phases(const Graph& graph, MPI_Comm g, Kind kind, const TypePair& t, bool nonblocking) {
  const std::string at = graph.name + " " + kind_name(kind) + " " + t.name;
  unsigned salt = 0;
  InFlight small(Call{kind, &graph, &t, 2, 0});
  // Nonblocking: blocks from 64 KiB too, where the MPI's progress loop may
  // forward (algos::kForwardedNonblockingBlock).
  InFlight large(Call{kind, &graph, &t, nonblocking ? 70000 : 300, 0});
  const auto calls = [&](InFlight& f, int n, const std::string& what) {
    if (nonblocking) {
      nonblocking_calls(f, g, n, salt, what);
    } else {
      blocking_calls(f.runs[0], g, n, salt, what);
    }
  };
  const int phase_calls = nonblocking ? kNonblockingPhaseCalls : kPhaseCalls;
  calls(small, phase_calls, at + " small");
  // A call of the other mode between: not one of the tuner's.
  Run between(Call{kind, &graph, &t, 5, 0});
  if (nonblocking) {
    check(post(between, false, g, nullptr) == MPI_SUCCESS, at + ": blocking call");
  } else {
    MPI_Request req = MPI_REQUEST_NULL;
    check(post(between, false, g, &req) == MPI_SUCCESS, at + ": nonblocking call");
    check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, at + ": its wait");
  }
  between.verify(at + " call between");
  calls(large, phase_calls, at + " large");
  for (int i = 0; i < 20; ++i) calls(i % 2 == 0 ? small : large, 1, at + " alternating " + std::to_string(i));
  small.finish_all();
  large.finish_all();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bool nonblocking = argc > 1 && std::strcmp(argv[1], "nonblocking") == 0;
  begin();
  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> types = make_type_pairs(owned);
  std::size_t graph_index = 0;
  for (const Graph& graph : test_graphs()) {
    std::size_t cell = graph_index++;  // + the kind's index: which datatype (nonblocking)
    const MPI_Comm g = make_graph(graph);
    // A duplicate whose calls interleave with the original's: its own tuner.
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(g, &dup);
    for (const Kind kind : {Kind::allgather, Kind::alltoallv, Kind::alltoall, Kind::allgatherv}) {
      ++cell;
      for (const TypePair* t : {&types[0], &types[1]}) {
        // Nonblocking: one datatype per graph and kind, in turn (each kind
        // meets both over the graphs), since three calls in flight at a
        // time take 7 times as long under AddressSanitizer.
        if (nonblocking && t != &types[cell % 2]) continue;
        phases(graph, g, kind, *t, nonblocking);
        unsigned salt = 1000;
        Run other(Call{kind, &graph, t, 7, 0});
        blocking_calls(other, dup, 3, salt, graph.name + " " + kind_name(kind) + " on the duplicate");
      }
    }
    MPI_Comm_free(&dup);
    MPI_Comm free_me = g;
    MPI_Comm_free(&free_me);
  }
  return finish(owned);
}
