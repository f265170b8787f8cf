// One call that a rank runs all linear while its peers forward some blocks
// (src/transport/channel.h: every linear fragment travels in tag window 0).
//
// 4 ranks as 2 emulated nodes of 2, NBRCOLL_THRESHOLD=1024: ranks 0 and 2
// send 8-byte blocks (linear), ranks 1 and 3 blocks of 4 KiB (leader).
// Out-lists 0: {1, 3}, 1: {2, 3}, 2: {0, 1}, 3: {1, 2}, so rank 0 receives
// only rank 2's small block and runs every call on the host fast path,
// while rank 2 (receiving big blocks) runs the engine and sends rank 0 its
// small block as a linear fragment. The two ends must put that fragment
// in the same tag window, call after call, blocking and nonblocking, with
// several calls in flight. Every receive block and the guard bytes around
// it are checked against their closed form.
//
//   mixed_windows [ROUNDS]   (20)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/mpi/mpi_check.h"

namespace {

constexpr int kRanks = 4;
constexpr int kInFlight = 3;
constexpr int kGuard = 16;
constexpr unsigned char kGuardByte = 0xA5;
const std::vector<int> kOut[kRanks] = {{1, 3}, {2, 3}, {0, 1}, {1, 2}};

int block_bytes(int rank) {
  return rank % 2 == 0 ? 8 : 4096;
}

// The byte at `i` of `rank`'s block in round `round`, call `call`.
unsigned char pattern(int rank, int round, int call, int i) {
  return static_cast<unsigned char>(rank * 31 + round * 7 + call * 13 + i);
}

std::vector<int> in_list(int rank) {
  std::vector<int> in;
  for (int s = 0; s < kRanks; ++s)
    for (const int d : kOut[s])
      if (d == rank) in.push_back(s);
  return in;
}

struct Buffers {
  std::vector<unsigned char> send;
  std::vector<unsigned char> recv;  // guard, block, guard, block, ..., guard
  std::vector<int> counts, displs;
};

Buffers make(int rank, const std::vector<int>& in, int round, int call) {
  Buffers b;
  b.send.resize(static_cast<std::size_t>(block_bytes(rank)));
  for (int i = 0; i < block_bytes(rank); ++i) b.send[static_cast<std::size_t>(i)] = pattern(rank, round, call, i);
  int at = kGuard;
  for (const int s : in) {
    b.counts.push_back(block_bytes(s));
    b.displs.push_back(at);
    at += block_bytes(s) + kGuard;
  }
  b.recv.assign(static_cast<std::size_t>(at), kGuardByte);
  return b;
}

// Wrong bytes of one call's receive area (0: every block and guard as expected).
int wrong_bytes(const Buffers& b, const std::vector<int>& in, int round, int call) {
  return nbt::wrong_guarded_bytes(b.recv, b.counts, b.displs, kGuardByte,
                                  [&](std::size_t k, int i) { return pattern(in[k], round, call, i); });
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nbt::begin();
  if (nbt::g_size != kRanks) {
    if (nbt::g_rank == 0) std::fprintf(stderr, "mixed_windows: needs %d ranks\n", kRanks);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int rank = nbt::g_rank;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::vector<int> in = in_list(rank);
  const std::vector<int>& out = kOut[rank];
  MPI_Comm g = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  const auto checked = [&](const Buffers& b, int round, int call) {
    nbt::check(wrong_bytes(b, in, round, call) == 0,
               "round " + std::to_string(round) + " call " + std::to_string(call) + ": every block and guard");
  };
  for (int round = 0; round < rounds; ++round) {
    // Nonblocking, several in flight, completed in reverse order.
    std::vector<Buffers> calls;
    std::vector<MPI_Request> requests(kInFlight, MPI_REQUEST_NULL);
    for (int c = 0; c < kInFlight; ++c) calls.push_back(make(rank, in, round, c));
    for (int c = 0; c < kInFlight; ++c) {
      Buffers& b = calls[static_cast<std::size_t>(c)];
      nbt::check(
          MPI_Ineighbor_allgatherv(b.send.data(), block_bytes(rank), MPI_BYTE, b.recv.data(), b.counts.data(),
                                   b.displs.data(), MPI_BYTE, g, &requests[static_cast<std::size_t>(c)]) == MPI_SUCCESS,
          "MPI_Ineighbor_allgatherv returns success");
    }
    for (int c = kInFlight - 1; c >= 0; --c) MPI_Wait(&requests[static_cast<std::size_t>(c)], MPI_STATUS_IGNORE);
    for (int c = 0; c < kInFlight; ++c) checked(calls[static_cast<std::size_t>(c)], round, c);
    // Blocking, between the nonblocking rounds.
    Buffers b = make(rank, in, round, kInFlight);
    nbt::check(MPI_Neighbor_allgatherv(b.send.data(), block_bytes(rank), MPI_BYTE, b.recv.data(), b.counts.data(),
                                       b.displs.data(), MPI_BYTE, g) == MPI_SUCCESS,
               "MPI_Neighbor_allgatherv returns success");
    checked(b, round, kInFlight);
  }
  MPI_Comm_free(&g);
  return nbt::finish();
}
