// The benchmark's only contact with nbrcoll's internal API: choosing the
// algorithm and reading a communicator's plan traffic.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "transport/device/backend_abi.h"

namespace nbrbench {

// Sets nbrcoll's process-wide algorithm override ("native", "linear",
// "leader", "aggregated", "auto"; "native-again": the MPI's own once more,
// a control whose paired ratio against "native" shows what two runs of the
// same exchange differ by). Every rank must call it with the same name.
void select_algo(const std::string& name);

struct Traffic {
  bool have = false;                    // false: nbrcoll holds no plan
  std::vector<std::uint64_t> messages;  // per link class
  std::vector<std::uint64_t> bytes;
};

// nbrcoll's node topology here (NBRCOLL_TOPO as nbrcoll loads it): its source,
// e.g. "model:frontier", "hwloc", "flat".
std::string topology_source();

std::vector<std::string> link_class_names();
std::size_t network_class_index();

// What this rank sends in one call with `algo` ("linear", "leader" or "aggregated") on
// `graph_comm`, blocks of block_of(origin) bytes.
Traffic plan_traffic(MPI_Comm graph_comm, const std::string& algo, const std::function<std::uint64_t(int)>& block_of);

// Bytes that rank `origin` sends on its out-edge `out_index` in one call.
using EdgeBytes = std::function<std::uint64_t(int origin, std::size_t out_index)>;

// Bytes of the block of the k-th edge origin -> dest (bundles name blocks so).
using BlockBytes = std::function<std::uint64_t(int origin, int dest, int k)>;

// What this rank sends in one alltoall(v) call with `algo` on `graph_comm`
// (blocks of bytes_of bytes): nbrcoll's aggregated alltoall plan for
// "aggregated", its linear one otherwise. std::nullopt where nbrcoll holds
// no plan.
std::optional<Traffic> alltoall_plan_traffic(MPI_Comm graph_comm, const std::string& algo, const EdgeBytes& bytes_of,
                                             const BlockBytes& block_bytes);

// What this rank sends in one call of the MPI library's own algorithm: one
// message per out-edge to another rank, edge_bytes(out-edge index) bytes
// (duplicate edges each count). The link class of each peer comes from nbrcoll's linear plan
// on `graph_comm` when it has one, else from `node_of` (network or
// multi-hop).
Traffic native_traffic(MPI_Comm graph_comm, int self, const std::vector<int>& out,
                       const std::function<std::uint64_t(std::size_t)>& edge_bytes, const std::vector<int>& node_of);

// The cost model's time (us) of one call with `algo` on `graph_comm` (the
// allgather or alltoall plans), every block `block_bytes` long: the
// prediction nbrcoll's auto chooses by. "native" is linear's (the MPI's own
// algorithm sends the same messages); "auto" the variant auto takes at that
// size, in a blocking call or (`nonblocking`) a nonblocking or persistent
// one. std::nullopt where nbrcoll holds no plan.
std::optional<double> predicted_us(MPI_Comm graph_comm, const std::string& algo, bool alltoall,
                                   std::uint64_t block_bytes, bool nonblocking);
// Whether auto's calls on `graph_comm` may still change plan by themselves
// (a graph that plans late, or a size auto still times: nbrcoll's
// call/tuning.h), this rank's view.
bool tuning_busy(MPI_Comm graph_comm);
// The name of the machine model nbrcoll predicts with ("frontier", a file...).
std::string model_machine();

// Does the MPI take device memory itself? nbrcoll's own answer
// (NBRCOLL_GPU_AWARE, else MPIX_Query_cuda_support / _rocm_support).
bool mpi_takes_device_memory(const nbrcoll_device_backend& backend);

// Does nbrcoll move device fragments inside a node by IPC (NBRCOLL_DEVICE_IPC)?
bool device_ipc_enabled();

// Sum of every rank's traffic on rank 0 (collective over `comm`).
Traffic reduce_traffic(const Traffic& t, MPI_Comm comm);

}  // namespace nbrbench
