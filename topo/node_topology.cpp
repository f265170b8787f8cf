#include "topo/node_topology.h"

namespace nbrcoll::topo {

NodeTopology flat_topology(int devices) {
  if (devices < 1) devices = 1;
  NodeTopology t;
  t.devices = devices;
  const auto n = static_cast<std::size_t>(devices);
  t.links.assign(n * n, 0);
  t.hops.assign(n * n, 1);
  for (std::size_t i = 0; i < n; ++i) t.hops[i * n + i] = 0;
  t.package.resize(n);
  for (std::size_t i = 0; i < n; ++i) t.package[i] = static_cast<int>(i);
  t.numa.assign(n, -1);
  t.source = "flat";
  return t;
}

std::vector<int> peers(const NodeTopology& t, int device) {
  std::vector<int> out;
  if (device < 0 || device >= t.devices || t.package.size() != static_cast<std::size_t>(t.devices)) return out;
  const int pkg = t.package[static_cast<std::size_t>(device)];
  for (int d = 0; d < t.devices; ++d)
    if (d != device && t.package[static_cast<std::size_t>(d)] == pkg) out.push_back(d);
  return out;
}

}  // namespace nbrcoll::topo
