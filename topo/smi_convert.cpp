#include "topo/smi_convert.h"

#include <algorithm>

#include "topo/graph.h"
#include "topo/pci.h"
#include "topo/validate.h"

namespace nbrcoll::topo {
namespace {

constexpr std::uint64_t kWeightPerHop = 15;

int clamp_int(std::uint64_t v) {
  return static_cast<int>(std::min<std::uint64_t>(v, 1u << 20));
}

}  // namespace

LoadResult topology_from_smi(const SmiSource& smi) {
  const int n = smi.num_devices();
  if (n < 1) return {flat_topology(1), "ROCm SMI reports no GPUs"};
  if (n > kMaxDevices) return {flat_topology(1), "ROCm SMI reports " + std::to_string(n) + " GPUs, too many"};
  const auto un = static_cast<std::size_t>(n);
  NodeTopology t;
  t.devices = n;
  t.links.assign(un * un, 0);
  t.hops.assign(un * un, 0);
  std::vector<char> xgmi(un * un, 0), weighted(un * un, 0);
  std::vector<std::uint64_t> bw_min(un * un, 0), bw_max(un * un, 0);
  bool bandwidth_reported = false;  // some pair has max > 0: then 0 means "no direct link"
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const std::size_t k = static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j);
      std::uint64_t type_hops = 0;  // ignored: 1 for any two GPUs of a hive (the trap)
      SmiLinkType type = SmiLinkType::undefined;
      if (smi.link_type(i, j, type_hops, type) != SmiStatus::ok || type != SmiLinkType::xgmi) continue;
      xgmi[k] = 1;
      std::uint64_t w = 0;
      if (smi.link_weight(i, j, w) == SmiStatus::ok && w > 0) {
        weighted[k] = 1;
        t.hops[k] = std::max(1, clamp_int((w + kWeightPerHop / 2) / kWeightPerHop));
      }
      if (smi.minmax_bandwidth(i, j, bw_min[k], bw_max[k]) != SmiStatus::ok) bw_min[k] = bw_max[k] = 0;
      if (bw_max[k] > 0) bandwidth_reported = true;
    }
  }
  for (std::size_t k = 0; k < un * un; ++k) {
    if (!xgmi[k]) continue;
    if (bandwidth_reported) {
      t.links[k] = bw_max[k] == 0  ? 0
                   : bw_min[k] > 0 ? std::max(1, clamp_int((bw_max[k] + bw_min[k] / 2) / bw_min[k]))
                                   : 1;
    } else {  // MI100 / old ROCm: no bandwidth anywhere; one link to each direct (one-hop) peer
      t.links[k] = (!weighted[k] || t.hops[k] == 1) ? 1 : 0;
    }
  }
  const std::vector<int> graph_hops = hops_from_links(n, t.links);
  int longest = 0;
  for (std::size_t k = 0; k < un * un; ++k) {
    if (xgmi[k] && !weighted[k]) t.hops[k] = graph_hops[k];
    if (xgmi[k]) longest = std::max(longest, t.hops[k]);
  }
  for (std::size_t k = 0; k < un * un; ++k)
    if (!xgmi[k] && k % (un + 1) != 0) t.hops[k] = longest + 1;
  t.package = packages_from_links(n, t.links);
  t.numa.assign(un, -1);
  for (int i = 0; i < n; ++i) {
    int numa = -1;
    if (smi.numa_node(i, numa) == SmiStatus::ok && numa >= 0) t.numa[static_cast<std::size_t>(i)] = numa;
  }
  t.source = "rocm-smi";
  if (std::string err = validate_topology(t); !err.empty()) return {flat_topology(1), "ROCm SMI: " + err};
  return {std::move(t), {}};
}

std::vector<int> map_hip_to_smi(const std::vector<std::string>& hip_bus_ids,
                                const std::vector<std::uint64_t>& smi_pci_ids) {
  std::vector<int> out(hip_bus_ids.size(), -1);
  std::vector<char> taken(smi_pci_ids.size(), 0);
  for (std::size_t h = 0; h < hip_bus_ids.size(); ++h) {
    const auto addr = parse_bus_id(hip_bus_ids[h]);
    if (!addr) continue;
    for (std::size_t s = 0; s < smi_pci_ids.size(); ++s) {
      if (!taken[s] && from_smi_pci_id(smi_pci_ids[s]) == *addr) {
        taken[s] = 1;
        out[h] = static_cast<int>(s);
        break;
      }
    }
  }
  return out;
}

}  // namespace nbrcoll::topo
