// ROCm SMI -> NodeTopology, as a pure function behind a seam (SmiSource) so
// tests can feed what a real node reports. The trap (shared/data/
// topologies.md): rsmi_topo_get_link_type says hops = 1 for ANY two GPUs of
// one xGMI hive, so T_h comes from the link weight (15 per xGMI hop) and T_l
// from max/min bandwidth (50000 MB/s per link).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

enum class SmiStatus { ok, not_supported, error };
enum class SmiLinkType { undefined = 0, pcie = 1, xgmi = 2 };  // RSMI_IO_LINK_TYPE values

// What the conversion needs from ROCm SMI, one method per rsmi call.
class SmiSource {
 public:
  virtual ~SmiSource() = default;
  virtual int num_devices() const = 0;  // rsmi_num_monitor_devices
  virtual SmiStatus link_type(int src, int dst, std::uint64_t& hops,
                              SmiLinkType& type) const = 0;  // rsmi_topo_get_link_type
  virtual SmiStatus link_weight(int src, int dst,
                                std::uint64_t& weight) const = 0;  // rsmi_topo_get_link_weight
  virtual SmiStatus minmax_bandwidth(int src, int dst, std::uint64_t& min_mbps,
                                     std::uint64_t& max_mbps) const = 0;  // rsmi_minmax_bandwidth_get
  virtual SmiStatus pci_id(int dev, std::uint64_t& id) const = 0;         // rsmi_dev_pci_id_get
  virtual SmiStatus numa_node(int dev, int& numa) const = 0;              // rsmi_topo_get_numa_node_number
};

// Rules, for every ordered pair i != j:
// - xGMI pair (link_type): hops = round(weight / 15), at least 1 (13 between
//   partitions of one socket -> 1); links = round(max / min) (1 when min is 0).
// - When no xGMI pair on the node reports max > 0 (MI100, old ROCm, query
//   failing), every xGMI pair whose weight says one hop (or has no weight)
//   gets 1 link, others 0. Otherwise max = 0 means "not directly connected".
// - other pairs (PCIe): links 0, hops = 1 + the longest xGMI hop count on the
//   node (1 on a PCIe-only node: flat).
// - xGMI pairs without a weight take their hops from the link graph.
// package = packages_from_links (graph.h); numa from numa_node, else -1.
// Bus ids are not used for packages: the two GCDs of a Frontier MI250X sit
// on buses c1 and c6, not adjacent ones. The result is validated (symmetric).
LoadResult topology_from_smi(const SmiSource& smi);

// For each HIP device ordinal (its hipDeviceGetPCIBusId string), the ROCm SMI
// index with the same PCI address (smi_pci_ids[k] = rsmi_dev_pci_id_get(k)),
// or -1. ROCm SMI ignores HIP_VISIBLE_DEVICES, hence this mapping. When
// several SMI devices share one address (partitions), the k-th HIP device
// with that address gets the k-th SMI match.
std::vector<int> map_hip_to_smi(const std::vector<std::string>& hip_bus_ids,
                                const std::vector<std::uint64_t>& smi_pci_ids);

}  // namespace nbrcoll::topo
