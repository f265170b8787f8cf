#include "topo/models.h"

#include <cctype>

namespace nbrcoll::topo {
namespace {

// clang-format off
// Frontier / HPE Cray EX235a: 4 x MI250X = 8 GCDs (shared/data/topologies.md,
// from RCCL's built-in model; NUMA map from the OLCF user guide).
constexpr int kFrontierLinks[64] = {
  0, 4, 1, 0, 0, 0, 2, 0,
  4, 0, 0, 1, 0, 1, 0, 0,
  1, 0, 0, 4, 2, 0, 0, 0,
  0, 1, 4, 0, 0, 0, 0, 1,
  0, 0, 2, 0, 0, 4, 1, 0,
  0, 1, 0, 0, 4, 0, 0, 1,
  2, 0, 0, 0, 1, 0, 0, 4,
  0, 0, 0, 1, 0, 1, 4, 0};
constexpr int kFrontierHops[64] = {
  0, 1, 1, 2, 2, 2, 1, 2,
  1, 0, 2, 1, 2, 1, 2, 2,
  1, 2, 0, 1, 1, 2, 2, 2,
  2, 1, 1, 0, 2, 2, 2, 1,
  2, 2, 1, 2, 0, 1, 1, 2,
  2, 1, 2, 2, 1, 0, 2, 1,
  1, 2, 2, 2, 1, 2, 0, 1,
  2, 2, 2, 1, 2, 1, 1, 0};
constexpr int kFrontierNuma[8] = {3, 3, 1, 1, 0, 0, 2, 2};

// 4 x MI250 OAM dual-socket PCIe server, the paper's Cluster A (Fig. 1).
constexpr int kMi250Links[64] = {
  0, 4, 0, 0, 2, 0, 1, 0,
  4, 0, 0, 1, 0, 0, 0, 1,
  0, 0, 0, 4, 1, 0, 2, 0,
  0, 1, 4, 0, 0, 1, 0, 0,
  2, 0, 1, 0, 0, 4, 0, 0,
  0, 0, 0, 1, 4, 0, 0, 1,
  1, 0, 2, 0, 0, 0, 0, 4,
  0, 1, 0, 0, 0, 1, 4, 0};
constexpr int kMi250Hops[64] = {
  0, 1, 2, 2, 1, 2, 1, 2,
  1, 0, 2, 1, 2, 2, 2, 1,
  2, 2, 0, 1, 1, 2, 1, 2,
  2, 1, 1, 0, 2, 1, 2, 2,
  1, 2, 1, 2, 0, 1, 2, 2,
  2, 2, 2, 1, 1, 0, 2, 1,
  1, 2, 1, 2, 2, 2, 0, 1,
  2, 1, 2, 2, 2, 1, 1, 0};
constexpr int kMi250Numa[8] = {1, 1, 1, 1, 3, 3, 3, 3};
constexpr int kPairPackages[8] = {0, 0, 1, 1, 2, 2, 3, 3};
// clang-format on

NodeTopology from_tables(const char* name, int n, const int* links, const int* hops, const int* package,
                         const int* numa) {
  NodeTopology t;
  t.devices = n;
  const auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  t.links.assign(links, links + nn);
  t.hops.assign(hops, hops + nn);
  t.package.assign(package, package + n);
  t.numa.assign(numa, numa + n);
  t.source = std::string("model:") + name;
  return t;
}

// n devices, every pair joined by `links` links (0: none) and `hops` hops,
// each device its own package.
NodeTopology uniform(const char* name, int n, int links, std::vector<int> numa) {
  NodeTopology t = flat_topology(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (i != j) t.links[pair_index(t, i, j)] = links;
  }
  t.numa = std::move(numa);
  t.source = std::string("model:") + name;
  return t;
}

// Summit: 6 V100, GPUs {0,1,2} on socket 0 and {3,4,5} on socket 1; each
// in-socket pair has 2 NVLink bricks, nothing across (traffic crosses the
// X-bus: 2 hops). POWER9 NUMA ids on Summit are 0 and 8.
NodeTopology summit() {
  NodeTopology t = uniform("summit", 6, 0, {0, 0, 0, 8, 8, 8});
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 6; ++j) {
      if (i == j) continue;
      const bool same_socket = (i / 3) == (j / 3);
      t.links[pair_index(t, i, j)] = same_socket ? 2 : 0;
      t.hops[pair_index(t, i, j)] = same_socket ? 1 : 2;
    }
  }
  return t;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<std::string> model_names() {
  return {"frontier", "mi250", "mi300x", "mi300a", "summit", "dgx-a100", "dgx-h100"};
}

std::optional<NodeTopology> builtin_model(std::string_view name) {
  const std::string n = lower(name);
  if (n == "frontier") return from_tables("frontier", 8, kFrontierLinks, kFrontierHops, kPairPackages, kFrontierNuma);
  if (n == "mi250") return from_tables("mi250", 8, kMi250Links, kMi250Hops, kPairPackages, kMi250Numa);
  // MI300X: 8 OAM, fully connected by one xGMI link per pair; host NUMA varies by server.
  if (n == "mi300x") return uniform("mi300x", 8, 1, std::vector<int>(8, -1));
  // MI300A (El Capitan): 4 APUs, 2 links per pair; each APU is its own NUMA node.
  if (n == "mi300a") return uniform("mi300a", 4, 2, {0, 1, 2, 3});
  if (n == "summit") return summit();
  // DGX A100 / H100: NVSwitch crossbar, modelled as uniform: every pair gets
  // the GPU's whole NVLink count (12 / 18), which is what one peer-to-peer
  // copy can use. DGX H100: GPUs 0-3 on socket 0, 4-7 on socket 1; the DGX
  // A100 NUMA map depends on the BIOS NPS setting, so it stays unknown.
  if (n == "dgx-a100") return uniform("dgx-a100", 8, 12, std::vector<int>(8, -1));
  if (n == "dgx-h100") return uniform("dgx-h100", 8, 18, {0, 0, 0, 0, 1, 1, 1, 1});
  return std::nullopt;
}

}  // namespace nbrcoll::topo
