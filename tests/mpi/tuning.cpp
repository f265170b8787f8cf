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
#include <mpi.h>

#include <string>
#include <vector>

#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"

namespace {

using namespace nbt;

// Enough calls of one size for a trying window (18), a watching gap (18)
// and a second trying window, with a margin.
constexpr int kPhaseCalls = 60;

void blocking_calls(Run& run, MPI_Comm g, int calls, unsigned& salt, const std::string& at) {
  for (int i = 0; i < calls; ++i) {
    run.refill(++salt);
    check(post(run, false, g, nullptr) == MPI_SUCCESS, at + ": call " + std::to_string(i));
    run.verify(at + " call " + std::to_string(i));
  }
}

void phases(const Graph& graph, MPI_Comm g, Kind kind, const TypePair& t) {
  const std::string at = graph.name + " " + kind_name(kind) + " " + t.name;
  unsigned salt = 0;
  Run small(Call{kind, &graph, &t, 2, 0});
  Run large(Call{kind, &graph, &t, 300, 0});
  blocking_calls(small, g, kPhaseCalls, salt, at + " small");
  // A nonblocking call between: not one of the tuner's.
  Run between(Call{kind, &graph, &t, 5, 0});
  MPI_Request req = MPI_REQUEST_NULL;
  check(post(between, false, g, &req) == MPI_SUCCESS, at + ": nonblocking call");
  check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, at + ": its wait");
  between.verify(at + " nonblocking call");
  blocking_calls(large, g, kPhaseCalls, salt, at + " large");
  for (int i = 0; i < 20; ++i) {
    Run& r = i % 2 == 0 ? small : large;
    blocking_calls(r, g, 1, salt, at + " alternating " + std::to_string(i));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> types = make_type_pairs(owned);
  for (const Graph& graph : test_graphs()) {
    const MPI_Comm g = make_graph(graph);
    // A duplicate whose calls interleave with the original's: its own tuner.
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(g, &dup);
    for (const Kind kind : {Kind::allgather, Kind::alltoallv, Kind::alltoall, Kind::allgatherv}) {
      for (const TypePair* t : {&types[0], &types[1]}) {
        phases(graph, g, kind, *t);
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
