// The application's own collectives on a graph communicator right after its
// creation, before any neighborhood call: nonblocking collectives, blocking
// ones, communicator creation from it, duplicates and their own nonblocking
// collectives; then a neighbor allgather on the graph and on each duplicate.
// Every result against its closed form. Ranks arrive late by turns, so the
// collectives meet whatever graph creation left in flight. A hang fails by
// the test's timeout.
//
// Why: nbrcoll once left its private communicator's MPI_Comm_idup of the
// graph pending past creation; under Open MPI 4.1.4 that made MPI_Ibarrier
// on the graph hang and MPI_Iallreduce return wrong sums. And the idups of
// several duplicates' private communicators, pending together, hung.
#include <mpi.h>

#include <string>
#include <vector>

#include "tests/mpi/mpi_check.h"

using nbt::check;
using nbt::g_rank;
using nbt::g_size;

namespace {

// Some ranks compute for a while before their next MPI call.
void arrive_late(int turn) {
  if ((g_rank + turn) % 3 != 0) return;
  volatile double x = 0;
  for (int i = 0; i < 300000; ++i) x = x + i;
}

// A ring in both directions (every rank's in- and out-list: left, right).
MPI_Comm make_ring(bool adjacent) {
  const int left = (g_rank + g_size - 1) % g_size;
  const int right = (g_rank + 1) % g_size;
  int in[2] = {left, right};
  int out[2] = {right, left};
  MPI_Comm graph = MPI_COMM_NULL;
  if (adjacent) {
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, MPI_UNWEIGHTED, 2, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &graph);
  } else {
    int degree = 2;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &g_rank, &degree, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  }
  return graph;
}

// Each rank's two ints (rank, -rank) from each in-neighbour, in the order
// the MPI lists them (MPI_Dist_graph_create chooses its own), with a guard
// int after the blocks that must stay untouched.
void check_allgather(MPI_Comm comm, const std::string& where) {
  int in[2] = {-1, -1};
  int out[2] = {-1, -1};
  MPI_Dist_graph_neighbors(comm, 2, in, MPI_UNWEIGHTED, 2, out, MPI_UNWEIGHTED);
  int mine[2] = {g_rank, -g_rank};
  std::vector<int> got(5, -7);
  check(MPI_Neighbor_allgather(mine, 2, MPI_INT, got.data(), 2, MPI_INT, comm) == MPI_SUCCESS,
        where + ": MPI_Neighbor_allgather returns success");
  check(got == std::vector<int>{in[0], -in[0], in[1], -in[1], -7}, where + ": neighbor allgather blocks");
}

// Nonblocking collectives started together on `comm`, completed together.
void check_nonblocking(MPI_Comm comm, const std::string& where) {
  const int expected_sum = g_size * (g_size - 1) / 2;
  int sum = -1;
  int root_value = g_rank == 0 ? 4242 : -1;
  const int mine = g_rank;
  MPI_Request requests[3];
  MPI_Ibarrier(comm, &requests[0]);
  MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm, &requests[1]);
  MPI_Ibcast(&root_value, 1, MPI_INT, 0, comm, &requests[2]);
  check(MPI_Waitall(3, requests, MPI_STATUSES_IGNORE) == MPI_SUCCESS, where + ": nonblocking collectives complete");
  check(sum == expected_sum, where + ": MPI_Iallreduce sum");
  check(root_value == 4242, where + ": MPI_Ibcast value");
}

void one_round(int turn, bool adjacent) {
  const std::string name = std::string(adjacent ? "adjacent" : "general") + " graph, round " + std::to_string(turn);
  MPI_Comm graph = make_ring(adjacent);
  check(graph != MPI_COMM_NULL, name + ": created");
  arrive_late(turn);
  check_nonblocking(graph, name);

  // A communicator made from the graph (an empty group on all but rank 0's
  // half, so some ranks get MPI_COMM_NULL).
  MPI_Group whole = MPI_GROUP_NULL;
  MPI_Group half = MPI_GROUP_NULL;
  MPI_Comm_group(graph, &whole);
  int range[1][3] = {{0, (g_size - 1) / 2, 1}};
  MPI_Group_range_incl(whole, 1, range, &half);
  MPI_Comm made = MPI_COMM_NULL;
  check(MPI_Comm_create(graph, half, &made) == MPI_SUCCESS, name + ": MPI_Comm_create");
  check((made != MPI_COMM_NULL) == (g_rank <= (g_size - 1) / 2), name + ": MPI_Comm_create membership");
  if (made != MPI_COMM_NULL) MPI_Comm_free(&made);
  MPI_Group_free(&half);
  MPI_Group_free(&whole);

  // Duplicates back to back, ranks late between them, each duplicate's own
  // nonblocking collectives and neighbor call in the reverse order.
  std::vector<MPI_Comm> dups(4, MPI_COMM_NULL);
  for (std::size_t k = 0; k < dups.size(); ++k) {
    MPI_Comm_dup(graph, &dups[k]);
    arrive_late(turn + static_cast<int>(k));
  }
  for (std::size_t k = dups.size(); k-- > 0;) check_nonblocking(dups[k], name + ", duplicate " + std::to_string(k));

  int sum = -1;
  check(MPI_Allreduce(&g_rank, &sum, 1, MPI_INT, MPI_SUM, graph) == MPI_SUCCESS, name + ": MPI_Allreduce");
  check(sum == g_size * (g_size - 1) / 2, name + ": MPI_Allreduce sum");

  check_allgather(graph, name);
  for (std::size_t k = dups.size(); k-- > 0;) check_allgather(dups[k], name + ", duplicate " + std::to_string(k));
  // Collectives again once nbrcoll's calls have run.
  check_nonblocking(graph, name + ", after the neighbor calls");
  for (MPI_Comm& d : dups) MPI_Comm_free(&d);
  MPI_Comm_free(&graph);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nbt::begin();
  nbt::expect_interposed({"MPI_Dist_graph_create_adjacent", "MPI_Dist_graph_create", "MPI_Neighbor_allgather"});
  for (int turn = 0; turn < 24; ++turn) one_round(turn, turn % 2 == 0);
  return nbt::finish();
}
