// The pure parts of nbrcoll-calibrate: which pairs of ranks stand for each
// link class, the nodes and the cores per node from what the ranks report,
// the classes no pair measures, and the machine file. No MPI, unit-tested.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algos/cost_model.h"
#include "algos/plan.h"

namespace nbrcalib {

using nbrcoll::algos::kLinkClassCount;
inline constexpr std::uint8_t kNoClass = 0xff;  // a rank and itself

// classes[a * ranks + b]: the link class nbrcoll's plan uses from a to b.
// The node of each rank (0, 1, ... in order of their lowest rank): ranks
// whose class is not the network share a node.
std::vector<int> nodes_from_classes(const std::vector<std::uint8_t>& classes, int ranks);

// Per class the first pair a < b (in rank order) of that class, {-1, -1} if none.
std::array<std::pair<int, int>, kLinkClassCount> first_pairs(const std::vector<std::uint8_t>& classes, int ranks);

// Per class the measured class whose values it takes: itself if measured,
// else the nearest measured one in class order (same-device, same-package,
// xgmi-linked, multi-hop, network), the slower (later) one on a tie; -1 if
// nothing was measured.
std::array<int, kLinkClassCount> value_sources(const std::array<bool, kLinkClassCount>& measured);

// Cores per node: per host (ranks with the same host key: emulated nodes in
// network namespaces share a boot id), the CPUs in the union of its ranks'
// affinity masks over the number of nodes on it; the least over hosts.
struct Cores {
  double per_node = 1;
  int hosts = 0;
  int host_cpus = 0;      // CPUs of the host that gave the least
  int nodes_on_host = 0;  // nodes on that host
};
Cores cores_per_node(const std::vector<std::string>& host_of_rank, const std::vector<int>& node_of_rank,
                     const std::vector<std::vector<std::uint64_t>>& cpu_mask_of_rank);

// The floor's exchange (every rank taking part): per rank, the rank of the
// same index on the next node and on the previous one (wrapping around;
// on 2 nodes the same rank twice), or on one node the next and the
// previous rank. Empty lists for a single rank.
std::vector<std::vector<int>> halo_peers(const std::vector<int>& node_of_rank);

// A token bucket's depth from a node's rate for `probe` bytes sent after a
// pause (`paused`) against its steady rate (`steady`, bytes/us): the bytes
// that left at once, probe * (1 - steady / paused); 0 below a twentieth of
// the probe (not told from noise) or where the paused rate is not higher.
double burst_bytes(double probe, double paused, double steady);

// The ranks whose lists in `peers_of` name `rank` (once per naming).
std::vector<int> senders_to(const std::vector<std::vector<int>>& peers_of, int rank);

// The RankLoad of `rank` in the floor's exchange of `bytes`-byte messages
// (its sends and receives by the classes between the ranks).
nbrcoll::algos::RankLoad exchange_load(const std::vector<std::vector<int>>& peers_of, int rank,
                                       const std::vector<std::uint8_t>& classes, std::uint64_t bytes);

// Median of a sample (mean of the two middle values for an even count; 0 if empty).
double median(std::vector<double> samples);

// The machine file: `comments` as '#' lines, then format_machine(m).
std::string machine_file(const nbrcoll::algos::MachineModel& m, const std::vector<std::string>& comments);

}  // namespace nbrcalib
