// One node's device topology: how many devices (GCDs), the link matrix T_l,
// the hop matrix T_h and the package of each device, plus where it came from.
// This header is the contract the shim (src/) uses; keep it stable.
#pragma once

#include <string>
#include <vector>

namespace nbrcoll::topo {

struct NodeTopology {
  int devices = 0;
  std::vector<int> links;    // devices x devices, row-major (T_l)
  std::vector<int> hops;     // devices x devices, row-major (T_h)
  std::vector<int> package;  // package (GPU) id of each device
  std::vector<int> numa;     // NUMA node of each device, -1 where unknown
  std::string source;        // e.g. "model:frontier", "file:/path", "flat"
};

// Every device its own package, one hop between any two, no links.
// devices < 1 is treated as 1.
NodeTopology flat_topology(int devices);

// Where T[i][j] lies in the row-major matrices; T_l[i][j] and T_h[i][j].
// The caller keeps i and j in [0, devices).
inline std::size_t pair_index(const NodeTopology& t, int i, int j) {
  return static_cast<std::size_t>(i) * static_cast<std::size_t>(t.devices) + static_cast<std::size_t>(j);
}
inline int link_count(const NodeTopology& t, int i, int j) {
  return t.links[pair_index(t, i, j)];
}
inline int hop_count(const NodeTopology& t, int i, int j) {
  return t.hops[pair_index(t, i, j)];
}

// The other devices in `device`'s package, ascending (empty when it is alone
// or when `device` is out of range).
std::vector<int> peers(const NodeTopology& t, int device);

struct LoadResult {
  NodeTopology topology;
  std::string error;  // empty when `topology` is what `spec` asked for
};

// spec as in NBRCOLL_TOPO: "auto", "flat", "flat:N", "rocm-smi", "hwloc",
// a built-in model name (frontier, mi250, ...) or a file path.
// Never throws, never writes to stdout: on failure `topology` is a flat
// fallback and `error` says why.
LoadResult load_topology(const std::string& spec);

}  // namespace nbrcoll::topo
