// Graphs on the communicators of an MPI session (MPI 4's sessions model).
//
//   sessions            the program never calls MPI_Init: the MPI's world
//                       model is not up, there is no MPI_COMM_WORLD or
//                       MPI_COMM_SELF to use (MPICH aborts on them), and
//                       nbrcoll leaves the graphs to the MPI;
//   sessions --world    MPI_Init first, then the same: nbrcoll takes them.
//
// Either way every call's receive area, guard bytes included, must equal its
// closed form (neighbor_case.h): the test graphs (duplicate and self edges,
// MPI_PROC_NULL, empty neighbourhoods, a star, a chain, a ring) on a
// communicator made from the session's "mpi://WORLD" group and on a
// duplicate of it, and a periodic Cartesian ring made from it; every kind;
// blocking, nonblocking (each completion call in turn) and persistent.
// The launch line's EXPECT_LINES say which of the two ran the calls.
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/neighbor_case.h"

namespace {

using namespace nbt;

constexpr int kCount = 3;  // elements per block

// A 1-D periodic Cartesian ring of the communicator's size, as the closed
// form reads it: each rank's (-1, +1) neighbours in both lists.
Graph cartesian_ring(int size) {
  Graph g = empty_graph(size, "cartesian-ring");
  g.cartesian = true;
  for (int r = 0; r < size; ++r) {
    const int lists[2] = {(r + size - 1) % size, (r + 1) % size};
    for (const int p : lists) {
      g.in[static_cast<std::size_t>(r)].push_back(p);
      g.out[static_cast<std::size_t>(r)].push_back(p);
    }
  }
  return g;
}

// Every kind in every mode on graph communicator `comm` with lists `g`;
// where the MPI runs the calls (`mpi_runs`), only the kinds whose answer it
// gets right on that graph (native_works: MPICH 4.0.2's own alltoall and
// alltoallw are not).
void every_call(const Graph& g, MPI_Comm comm, const std::vector<TypePair>& pairs, bool mpi_runs, unsigned& salt,
                int& done_turn) {
  const Kind kinds[] = {Kind::allgather, Kind::allgatherv, Kind::alltoall, Kind::alltoallv, Kind::alltoallw};
  for (const Kind k : kinds) {
    if (mpi_runs && !native_works(g, k)) continue;
    for (const TypePair& types : pairs) {
      Call c;
      c.kind = k;
      c.graph = &g;
      c.types = &types;
      c.count = kCount;
      c.per_edge_types = &pairs;
      const std::string what = g.name + " " + kind_name(k) + " " + types.name;
      for (int mode = 0; mode < 3; ++mode) {
        Run run(c);
        run.refill(++salt);
        MPI_Request req = MPI_REQUEST_NULL;
        int rc = MPI_SUCCESS;
        std::string how;
        if (mode == 0) {
          how = "blocking";
          rc = post(run, false, comm, nullptr);
        } else if (mode == 1) {
          const auto d = static_cast<Done>(done_turn++ % static_cast<int>(Done::count));
          how = std::string("nonblocking, ") + done_name(d);
          rc = post(run, false, comm, &req);
          if (rc == MPI_SUCCESS) rc = complete(&req, d);
        } else {
          how = "persistent";
          rc = post_init(run, false, comm, &req);
          if (rc == MPI_SUCCESS) rc = MPI_Start(&req);
          if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
          if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
        }
        check(rc == MPI_SUCCESS, what + " " + how + ": returned " + std::to_string(rc));
        run.verify(what + " " + how);
      }
      if (k == Kind::alltoallw) break;  // its types are per edge: one pass
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool world = argc > 1 && std::strcmp(argv[1], "--world") == 0;
  if (world) MPI_Init(&argc, &argv);
  MPI_Session session = MPI_SESSION_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Comm base = MPI_COMM_NULL;
  if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) != MPI_SUCCESS ||
      MPI_Group_from_session_pset(session, "mpi://WORLD", &group) != MPI_SUCCESS ||
      MPI_Comm_create_from_group(group, "nbrcoll.tests.sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &base) !=
          MPI_SUCCESS) {
    std::fprintf(stderr, "FAIL: cannot make a communicator from a session\n");
    return 1;
  }
  MPI_Comm_rank(base, &g_rank);
  MPI_Comm_size(base, &g_size);
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(base, &dup);

  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> pairs = make_type_pairs(owned);
  unsigned salt = 0;
  int done_turn = 0;
  for (const MPI_Comm parent : {base, dup}) {
    for (const Graph& g : test_graphs()) {
      MPI_Comm comm = create_adjacent(g, g_rank, parent);
      every_call(g, comm, pairs, !world, salt, done_turn);
      MPI_Comm_free(&comm);
    }
  }
  const int dims[1] = {g_size};
  const int periods[1] = {1};
  MPI_Comm cart = MPI_COMM_NULL;
  MPI_Cart_create(base, 1, dims, periods, 0, &cart);
  every_call(cartesian_ring(g_size), cart, pairs, !world, salt, done_turn);
  MPI_Comm_free(&cart);

  for (MPI_Datatype& t : owned) MPI_Type_free(&t);
  long totals[2] = {g_checks.load(), g_failures.load()};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG, MPI_SUM, base);
  if (g_rank == 0) {
    std::printf("%s: %ld passed, %ld failed\n", world ? "MPI_Init and a session" : "a session alone",
                totals[0] - totals[1], totals[1]);
    if (totals[0] == 0) std::printf("FAIL: no check ran\n");
  }
  MPI_Comm_free(&dup);
  MPI_Comm_free(&base);
  MPI_Group_free(&group);
  MPI_Session_finalize(&session);
  if (world) MPI_Finalize();
  return totals[1] == 0 && totals[0] > 0 ? 0 : 1;
}
