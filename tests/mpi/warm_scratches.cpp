// A nonblocking call that forwards hands its scratch (packed blocks,
// bundles, the engine's vectors) back to its handle's pool when it is done,
// so that the next call finds it warm (src/call/progress.cpp). Its tag
// window still remembers the call until a later call takes that window, up
// to 63 calls on; when the scratch went back only then, every call of a
// loop of start and wait made and warmed a scratch of its own.
//
// 4 ranks as 2 emulated nodes of 2, every rank a neighbour of every other,
// MPI_Ineighbor_alltoallv of blocks of different sizes under
// NBRCOLL_ALGO=aggregated: first one call in flight at a time, then three.
// Every receive block and the guard bytes around it are checked against
// their closed form, and the handle's pool must have made one scratch for
// the first loop and three in all. Linked with the static library to read
// the pool (support/introspect.h).
//
//   warm_scratches [CALLS]   (80)
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/introspect.h"
#include "tests/mpi/mpi_check.h"

namespace {

constexpr int kGuard = 16;
constexpr unsigned char kGuardByte = 0x5A;

// Bytes `from` sends `to` (at least one: the sizes differ per pair).
int block_bytes(int from, int to) {
  return 512 + 256 * from + 64 * to;
}

unsigned char pattern(int from, int to, int call, int i) {
  return static_cast<unsigned char>(from * 29 + to * 11 + call * 7 + i);
}

struct Buffers {
  std::vector<unsigned char> send, recv;  // recv: guard, block, guard, ..., guard
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
};

Buffers make(int rank, const std::vector<int>& peers, int call) {
  Buffers b;
  for (const int to : peers) {
    b.send_displs.push_back(static_cast<int>(b.send.size()));
    b.send_counts.push_back(block_bytes(rank, to));
    for (int i = 0; i < block_bytes(rank, to); ++i) b.send.push_back(pattern(rank, to, call, i));
  }
  int at = kGuard;
  for (const int from : peers) {
    b.recv_displs.push_back(at);
    b.recv_counts.push_back(block_bytes(from, rank));
    at += block_bytes(from, rank) + kGuard;
  }
  b.recv.assign(static_cast<std::size_t>(at), kGuardByte);
  return b;
}

int wrong_bytes(const Buffers& b, int rank, const std::vector<int>& peers, int call) {
  return nbt::wrong_guarded_bytes(b.recv, b.recv_counts, b.recv_displs, kGuardByte,
                                  [&](std::size_t k, int i) { return pattern(peers[k], rank, call, i); });
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nbt::begin();
  const int rank = nbt::g_rank;
  const int calls = argc > 1 ? std::atoi(argv[1]) : 80;
  std::vector<int> peers;
  for (int r = 0; r < nbt::g_size; ++r)
    if (r != rank) peers.push_back(r);
  const int n = static_cast<int>(peers.size());
  MPI_Comm g = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, peers.data(), MPI_UNWEIGHTED, n, peers.data(), MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &g);
  // `in_flight` calls started, then waited for in reverse order; `call`
  // numbers them all.
  int call = 0;
  const auto round = [&](int in_flight) {
    std::vector<Buffers> bufs;
    std::vector<MPI_Request> requests(static_cast<std::size_t>(in_flight), MPI_REQUEST_NULL);
    for (int c = 0; c < in_flight; ++c) bufs.push_back(make(rank, peers, call + c));
    for (int c = 0; c < in_flight; ++c) {
      Buffers& b = bufs[static_cast<std::size_t>(c)];
      nbt::check(MPI_Ineighbor_alltoallv(b.send.data(), b.send_counts.data(), b.send_displs.data(), MPI_BYTE,
                                         b.recv.data(), b.recv_counts.data(), b.recv_displs.data(), MPI_BYTE, g,
                                         &requests[static_cast<std::size_t>(c)]) == MPI_SUCCESS,
                 "MPI_Ineighbor_alltoallv returns success");
    }
    for (int c = in_flight - 1; c >= 0; --c)
      nbt::check(MPI_Wait(&requests[static_cast<std::size_t>(c)], MPI_STATUS_IGNORE) == MPI_SUCCESS,
                 "MPI_Wait returns success");
    for (int c = 0; c < in_flight; ++c)
      nbt::check(wrong_bytes(bufs[static_cast<std::size_t>(c)], rank, peers, call + c) == 0,
                 "call " + std::to_string(call + c) + ": every block and guard");
    call += in_flight;
  };
  for (int k = 0; k < calls; ++k) round(1);
  const std::size_t alone = nbrcoll::nonblocking_scratches(g);
  nbt::check(alone == 1, std::to_string(calls) + " calls one after another made " + std::to_string(alone) +
                             " scratches, where one serves them all");
  for (int k = 0; k < calls / 3; ++k) round(3);
  const std::size_t three = nbrcoll::nonblocking_scratches(g);
  nbt::check(three == 3, "with three calls in flight the pool made " + std::to_string(three) + " scratches in all");
  MPI_Comm_free(&g);
  return nbt::finish();
}
