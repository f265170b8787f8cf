// MPI_THREAD_MULTIPLE smoke test: two threads per process, each driving
// nonblocking neighborhood collectives on its own graph communicator (a cycle
// and a star) and completing them with MPI_Waitall, MPI_Testsome loops and
// MPI_Test, or one call alone with MPI_Wait (a thread's only call, which
// nbrcoll may finish apart from the list of calls in flight while the other
// thread starts and completes its own), every result against the closed
// form (neighbor_case.h). Exits
// with 77 (skipped) where the MPI does not provide MPI_THREAD_MULTIPLE.
#include <mpi.h>

#include <cstdio>
#include <functional>
#include <list>
#include <string>
#include <thread>
#include <vector>

#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"

namespace {

using namespace nbt;

constexpr int kRounds = 25;

void drive(const Graph& graph, MPI_Comm g, const TypePair& t, unsigned salt) {
  for (int round = 0; round < kRounds; ++round) {
    const std::string what = graph.name + " thread, round " + std::to_string(round);
    std::list<Run> runs;
    const bool alone = round % 4 == 3;
    runs.emplace_back(Call{Kind::alltoallv, &graph, &t, 5, salt + 3 * static_cast<unsigned>(round)});
    if (!alone) {
      runs.emplace_back(Call{Kind::allgather, &graph, &t, 3, salt + 3 * static_cast<unsigned>(round) + 1});
      runs.emplace_back(Call{Kind::alltoall, &graph, &t, 2, salt + 3 * static_cast<unsigned>(round) + 2});
    }
    std::vector<MPI_Request> reqs;
    for (Run& r : runs) {
      reqs.push_back(MPI_REQUEST_NULL);
      check(post(r, false, g, &reqs.back()) == MPI_SUCCESS, what + ": posting");
    }
    const int n = static_cast<int>(reqs.size());
    if (alone) {
      check(MPI_Wait(&reqs.front(), MPI_STATUS_IGNORE) == MPI_SUCCESS, what + ": MPI_Wait");
    } else if (round % 3 == 0) {
      check(MPI_Waitall(n, reqs.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS, what + ": MPI_Waitall");
    } else if (round % 3 == 1) {
      std::vector<int> idx(reqs.size());
      int rc = MPI_SUCCESS;
      for (int out = 0; out != MPI_UNDEFINED && rc == MPI_SUCCESS;)
        rc = MPI_Testsome(n, reqs.data(), &out, idx.data(), MPI_STATUSES_IGNORE);
      check(rc == MPI_SUCCESS, what + ": MPI_Testsome");
    } else {
      for (MPI_Request& q : reqs)
        check(until_flag([&](int* f) { return MPI_Test(&q, f, MPI_STATUS_IGNORE); }) == MPI_SUCCESS,
              what + ": MPI_Test");
    }
    for (const Run& r : runs) r.verify(what + " " + kind_name(r.call.kind));
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  begin();
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) std::printf("skipped: the MPI provides thread level %d, not MPI_THREAD_MULTIPLE\n", provided);
    MPI_Finalize();
    return 77;
  }
  expect_interposed({"MPI_Ineighbor_allgather", "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv", "MPI_Waitall",
                     "MPI_Testsome", "MPI_Test"});
  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> types = make_type_pairs(owned);
  // A directed cycle and a star: no duplicate edges, which MPICH 4.0.2's own
  // neighbor alltoall gets wrong (see native_works()).
  Graph ring = empty_graph(g_size, "cycle");
  for (int r = 0; r < g_size; ++r) add_edge(ring, r, (r + 1) % g_size);
  const Graph star = star_graph(g_size);
  MPI_Comm a = make_graph(ring);
  MPI_Comm b = make_graph(star);
  std::thread first(drive, std::cref(ring), a, std::cref(types[2]), 100U);
  std::thread second(drive, std::cref(star), b, std::cref(types[5]), 500U);
  first.join();
  second.join();
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  return finish(owned);
}
