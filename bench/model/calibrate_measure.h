// The measurements of nbrcoll-calibrate (MPI). Every function is collective
// over `comm` and returns the same value on every rank; ranks that take no
// part wait in quiet_barrier, so the measuring ranks have the cores.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace nbrcalib {

// A barrier whose waiting ranks sleep: a nonblocking barrier tested after
// sleeps of 1, 2, 4, ... 64 ms. On an oversubscribed host (emulated nodes) a
// busy-polling wait would take the cores from the two ranks being measured.
void quiet_barrier(MPI_Comm comm);

// classes[a * P + b]: the link class of nbrcoll's linear plan from a to b,
// from a complete distributed graph created through nbrcoll (its locality:
// NBRCOLL_TOPO, NBRCOLL_DEVICE_MAP, the node of each rank). Empty when
// nbrcoll holds no plan for it (NBRCOLL_DISABLE=1).
std::vector<std::uint8_t> link_classes(MPI_Comm comm);

// Median over `iters` round trips of `bytes`-byte messages between ranks a
// and b (after `warmup` untimed ones), halved: the one-way time in us.
double one_way_us(MPI_Comm comm, int a, int b, std::uint64_t bytes, int iters, int warmup);

// Every rank of node `from` sends `bytes` to a rank of node `to` (in flow
// k, sender i to receiver i + k, cyclically), for every flow at once:
// node bytes per us (of the node with the most ranks sending), the median
// over `reps` rounds of the slowest rank's time.
struct NodeFlow {
  int from = 0;
  int to = 0;
};
// `pause_ms` > 0: every round starts after the taking part ranks slept that
// long (a link whose token bucket refills meanwhile sends its burst at once).
double node_bytes_per_us(MPI_Comm comm, const std::vector<int>& node_of, const std::vector<NodeFlow>& flows,
                         std::uint64_t bytes, int reps, int pause_ms = 0);

// Every rank sends `bytes` to each of `peers_of[rank]` and receives as much
// from every rank that names it, all at once, after a barrier: the median
// over `reps` (after `warmup`) of the slowest rank's time, in us.
double exchange_us(MPI_Comm comm, const std::vector<std::vector<int>>& peers_of, std::uint64_t bytes, int reps,
                   int warmup);

// memcpy of `bytes` on rank 0, median of `reps`: bytes per us.
double copy_bytes_per_us(MPI_Comm comm, std::uint64_t bytes, int reps);

// What identifies this process's host: the kernel's boot id (shared by
// network namespaces of one host), else the host name.
std::string host_key();
// The CPUs this process may run on (sched_getaffinity), 64 per word.
std::vector<std::uint64_t> cpu_mask();

}  // namespace nbrcalib
