// Which sides of a repeated linear call nbrcoll keeps as persistent
// requests (transport/linear_run.cpp, transport/standing_messages.h): the
// receives always, the sends only where none is 256 B or less (a small send
// leaves MPI_Isend inline, which a started persistent send never does).
// A ring (each rank sends to and receives from both neighbours), blocking
// alltoall of MPI_INT under NBRCOLL_ALGO=linear, 6 calls on the same
// buffers with new data each time, every result against its closed form:
// at blocks of 64 ints (256 B) nbrcoll then holds 2 persistent requests
// more than before (the receives), at 65 ints 4 (both sides); freeing the
// graph gives them back. Linked with the static library to read the
// handles nbrcoll holds (report/held_handles.h).
#include <mpi.h>

#include <string>
#include <vector>

#include "report/held_handles.h"
#include "tests/mpi/mpi_check.h"

namespace {

using namespace nbt;

constexpr int kRounds = 6;

std::int64_t held_requests() {
  return nbrcoll::report::held().count[static_cast<unsigned>(nbrcoll::report::Handle::kRequest)];
}

int value(int sender, int block, int k, int round) {
  return ((sender * 31 + block) * 1000 + k) * 10 + round;
}

// Repeats the call at `ints` per block; what nbrcoll holds then, less before.
std::int64_t kept_by_repeats(int ints) {
  const int left = (g_rank + g_size - 1) % g_size;
  const int right = (g_rank + 1) % g_size;
  const int peers[2] = {left, right};
  MPI_Comm ring = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, peers, MPI_UNWEIGHTED, 2, peers, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &ring);
  const std::int64_t before = held_requests();
  std::vector<int> send(2 * static_cast<std::size_t>(ints));
  std::vector<int> recv(2 * static_cast<std::size_t>(ints) + 1);
  for (int round = 0; round < kRounds; ++round) {
    for (int b = 0; b < 2; ++b)
      for (int k = 0; k < ints; ++k) send[static_cast<std::size_t>(b * ints + k)] = value(g_rank, b, k, round);
    std::fill(recv.begin(), recv.end(), -7);
    const std::string at = std::to_string(ints) + " ints, round " + std::to_string(round);
    check(MPI_Neighbor_alltoall(send.data(), ints, MPI_INT, recv.data(), ints, MPI_INT, ring) == MPI_SUCCESS,
          at + ": call");
    // Slot 0 is from the left neighbour, which sent it as its block 1 (to
    // its right); slot 1 from the right one's block 0. With 2 ranks both
    // are the same rank, its blocks paired in list order.
    bool right_data = recv.back() == -7;
    for (int k = 0; k < ints; ++k) {
      right_data = right_data && recv[static_cast<std::size_t>(k)] == value(left, g_size == 2 ? 0 : 1, k, round) &&
                   recv[static_cast<std::size_t>(ints + k)] == value(right, g_size == 2 ? 1 : 0, k, round);
    }
    check(right_data, at + ": receive area differs from the closed form");
  }
  const std::int64_t kept = held_requests() - before;
  MPI_Comm_free(&ring);
  check(held_requests() == before, std::to_string(ints) + " ints: the kept requests go with the graph");
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  if (g_size >= 2) {
    const std::int64_t small = kept_by_repeats(64);
    const std::int64_t large = kept_by_repeats(65);
    check(small == 2, "256 B blocks: 2 receives kept, the sends posted; kept " + std::to_string(small));
    check(large == 4, "260 B blocks: receives and sends kept; kept " + std::to_string(large));
  }
  return finish();
}
