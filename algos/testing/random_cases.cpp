#include "algos/testing/random_cases.h"

#include <algorithm>

namespace nbrcoll::algos::testing {

int pick(Rng& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
bool chance(Rng& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

namespace {

std::vector<NodeSpec> random_nodes(Rng& rng, std::string& what) {
  const double r = std::uniform_real_distribution<double>(0, 1)(rng);
  const int nodes = r < 0.85 ? pick(rng, 1, 6) : r < 0.95 ? pick(rng, 7, 16) : pick(rng, 17, 64);
  const int max_ppn = nodes > 16 ? 2 : nodes > 6 ? 4 : 8;
  const bool unequal = chance(rng, 0.4);
  const int ppn = pick(rng, 1, max_ppn);
  const Model model = kAllModels[pick(rng, 0, 3)];
  const bool mixed_models = chance(rng, 0.1);
  const int device_mode = pick(rng, 0, 19);  // 0-9 in order, 10-13 random, 14-16 permuted, 17-18 few, 19 unknown
  std::vector<NodeSpec> specs(static_cast<std::size_t>(nodes));
  for (NodeSpec& s : specs) {
    s.model = mixed_models ? kAllModels[pick(rng, 0, 3)] : model;
    const int n = unequal ? pick(rng, 1, max_ppn) : ppn;
    std::vector<int> perm = {0, 1, 2, 3, 4, 5, 6, 7};
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < n; ++i) {
      int device = i % 8;
      if (device_mode >= 10 && device_mode <= 13) device = pick(rng, 0, 7);
      if (device_mode >= 14 && device_mode <= 16) device = perm[static_cast<std::size_t>(i)];
      if (device_mode >= 17 && device_mode <= 18) device = pick(rng, 0, 1) * pick(rng, 1, 7);
      if (device_mode == 19) device = pick(rng, 0, 9);  // 8, 9: outside the matrices
      s.devices.push_back(device);
    }
  }
  what += std::to_string(nodes) + " nodes (" + node_model(model).name + (mixed_models ? "+mixed" : "") +
          (unequal ? ", unequal" : "") + ", devices mode " + std::to_string(device_mode) + ")";
  return specs;
}

std::vector<Edge> random_edges(Rng& rng, int p, std::string& what) {
  std::vector<Edge> edges;
  const int kind = pick(rng, 0, 19);
  if (kind < 8) {
    const double densities[] = {0.05, 0.1, 0.2, 0.5, 1.0};
    double d = chance(rng, 0.5) ? densities[pick(rng, 0, 4)] : std::uniform_real_distribution<double>(0.05, 1.0)(rng);
    if (p > 32 && chance(rng, 0.8)) d = std::min(d, 1000.0 / (p * p));  // keep most big cases sparse
    edges = erdos_renyi_edges(p, d, rng);
    what += ", ER " + std::to_string(d);
  } else if (kind < 12) {
    const int dims = pick(rng, 1, 3);
    const int radius = dims == 3 && p > 16 ? 1 : pick(rng, 1, 2);  // at most 26 neighbours on big grids
    edges = moore_edges(p, dims, radius);
    what += ", Moore d" + std::to_string(dims) + " r" + std::to_string(radius);
  } else if (kind < 14) {
    edges = star_edges(p, pick(rng, 0, p - 1));
    what += ", star";
  } else if (kind < 16) {
    edges = ring_edges(p, pick(rng, 1, 3));
    what += ", ring";
  } else if (kind < 17) {
    what += ", empty";
  } else {
    edges = erdos_renyi_edges(p, 0.1, rng);
    for (const Edge& e : ring_edges(p, 1)) edges.push_back(e);
    what += ", ER+ring";
  }
  if (!edges.empty() && chance(rng, 0.25)) {
    const int extra = pick(rng, 1, static_cast<int>(edges.size()) / 4 + 1);
    for (int i = 0; i < extra; ++i)
      edges.push_back(edges[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(edges.size()) - 1))]);
    what += ", duplicates";
  }
  if (chance(rng, 0.2)) {
    const int extra = pick(rng, 1, 3);
    for (int i = 0; i < extra; ++i) {
      const int r = pick(rng, 0, p - 1);
      edges.emplace_back(r, r);
    }
    what += ", self edges";
  }
  return edges;
}

std::vector<std::uint64_t> random_blocks(Rng& rng, int p, std::size_t edges) {
  std::vector<std::uint64_t> blocks(static_cast<std::size_t>(p));
  const int kind = pick(rng, 0, 9);
  std::uint64_t size = 0;
  switch (kind) {
    case 0:
      size = 0;
      break;
    case 1:
      size = 1;
      break;
    case 2:
      size = 2 * static_cast<std::uint64_t>(pick(rng, 1, 150)) + 1;
      break;
    case 3:
      size = 64;
      break;
    case 4:
      size = 64 * static_cast<std::uint64_t>(pick(rng, 1, 40));
      size += static_cast<std::uint64_t>(pick(rng, 0, 63));
      break;
    case 5:
      size = edges <= 24 && chance(rng, 0.15) ? 1000003 : 4097;
      break;
    default:
      break;  // allgatherv: per rank
  }
  for (auto& b : blocks) b = kind <= 5 ? size : chance(rng, 0.2) ? 0 : static_cast<std::uint64_t>(pick(rng, 1, 3000));
  if (edges > 400) {
    for (auto& b : blocks) b = std::min<std::uint64_t>(b, 257);
  }
  return blocks;
}

}  // namespace

RandomCase random_case(Rng& rng) {
  RandomCase c;
  c.graph = make_comm(random_nodes(rng, c.what));
  const int p = c.graph.size();
  const std::vector<Edge> edges = random_edges(rng, p, c.what);
  const bool nulls = chance(rng, 0.25);
  set_edges(c.graph, edges, &rng, nulls ? 0.1 : 0.0);
  if (nulls) c.what += ", PROC_NULL";
  c.what += ", P=" + std::to_string(p) + ", E=" + std::to_string(edges.size());
  for (int i = 0; i < 2; ++i) c.blocks.push_back(random_blocks(rng, p, edges.size()));
  // Drawn last, so the graphs stay those of the seeds before it.
  c.graph.remote_leaders = chance(rng, 0.5) ? 0 : pick(rng, 1, 3);
  if (c.graph.remote_leaders > 0) c.what += ", remote leaders " + std::to_string(c.graph.remote_leaders);
  return c;
}

std::vector<std::vector<std::uint64_t>> random_edge_bytes(Rng& rng, const CommGraph& g) {
  std::vector<std::vector<std::uint64_t>> sizes;
  const int kind = pick(rng, 0, 4);
  for (const auto& out : g.out) {
    std::vector<std::uint64_t> row;
    for (std::size_t j = 0; j < out.size(); ++j) {
      switch (kind) {
        case 0:
          row.push_back(0);
          break;
        case 1:
          row.push_back(static_cast<std::uint64_t>(pick(rng, 0, 200)));
          break;
        case 2:
          row.push_back(chance(rng, 0.3) ? 0 : static_cast<std::uint64_t>(pick(rng, 1, 9000)));
          break;
        case 3:  // past the bundle prefix: second messages
          row.push_back(static_cast<std::uint64_t>(pick(rng, 4000, 70000)));
          break;
        default:
          row.push_back(4096);
          break;
      }
    }
    sizes.push_back(std::move(row));
  }
  return sizes;
}

}  // namespace nbrcoll::algos::testing
