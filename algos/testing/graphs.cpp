#include "algos/testing/graphs.h"

#include <algorithm>

#include "algos/testing/cartesian_lists.h"

namespace nbrcoll::algos::testing {

CommGraph make_comm(const std::vector<NodeSpec>& nodes) {
  CommGraph g;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const NodeModel model = node_model(nodes[n].model);
    g.nodes.push_back(model.matrices);
    for (const int device : nodes[n].devices) {
      const bool known = device >= 0 && device < static_cast<int>(model.package.size());
      const int package = known ? model.package[static_cast<std::size_t>(device)] : device;
      g.places.push_back({static_cast<int>(n), device, package});
    }
  }
  g.in.assign(g.places.size(), {});
  g.out.assign(g.places.size(), {});
  return g;
}

CommGraph make_uniform_comm(Model model, int nodes, int ranks_per_node) {
  std::vector<NodeSpec> specs(static_cast<std::size_t>(nodes));
  for (NodeSpec& s : specs) {
    s.model = model;
    for (int i = 0; i < ranks_per_node; ++i) s.devices.push_back(i % 8);
  }
  return make_comm(specs);
}

void set_edges(CommGraph& g, const std::vector<Edge>& edges, Rng* rng, double null_rate) {
  g.in.assign(g.places.size(), {});
  g.out.assign(g.places.size(), {});
  for (const auto& [s, d] : edges) {
    g.out[static_cast<std::size_t>(s)].push_back(d);
    g.in[static_cast<std::size_t>(d)].push_back(s);
  }
  if (rng == nullptr) return;
  std::bernoulli_distribution null_entry(null_rate);
  auto shuffle = [&](std::vector<int>& list) {
    std::shuffle(list.begin(), list.end(), *rng);
    if (null_rate <= 0.0) return;
    std::vector<int> with_nulls;
    for (const int r : list) {
      while (null_entry(*rng)) with_nulls.push_back(kNoRank);
      with_nulls.push_back(r);
    }
    if (null_entry(*rng)) with_nulls.push_back(kNoRank);
    list = std::move(with_nulls);
  };
  for (auto& list : g.in) shuffle(list);
  for (auto& list : g.out) shuffle(list);
}

void set_cartesian(CommGraph& g, const std::vector<int>& dims, const std::vector<bool>& periods) {
  g.pairing = EdgePairing::kCartesian;
  for (int r = 0; r < g.size(); ++r) {
    g.out[static_cast<std::size_t>(r)] = cartesian_neighbours(dims, periods, r, kNoRank);
    g.in[static_cast<std::size_t>(r)] = g.out[static_cast<std::size_t>(r)];
  }
}

std::vector<Edge> erdos_renyi_edges(int ranks, double density, Rng& rng) {
  std::vector<Edge> edges;
  std::bernoulli_distribution edge(density);
  for (int s = 0; s < ranks; ++s) {
    for (int d = 0; d < ranks; ++d) {
      if (s != d && edge(rng)) edges.emplace_back(s, d);
    }
  }
  return edges;
}

std::vector<Edge> moore_edges(int ranks, int dims, int radius) {
  // Grid extents: repeatedly give the largest remaining factor to the smallest extent.
  std::vector<int> extent(static_cast<std::size_t>(dims), 1);
  int rest = ranks;
  for (int f = 2; rest > 1;) {
    if (rest % f != 0) {
      ++f;
      continue;
    }
    rest /= f;
    *std::min_element(extent.begin(), extent.end()) *= f;
  }
  std::vector<Edge> edges;
  const int span = 2 * radius + 1;
  int combos = 1;
  for (int d = 0; d < dims; ++d) combos *= span;
  for (int s = 0; s < ranks; ++s) {
    for (int c = 0; c < combos; ++c) {
      int code = c;
      int dest = 0;
      int stride = 1;
      int coord_rest = s;
      bool zero = true;
      for (std::size_t d = 0; d < extent.size(); ++d) {
        const int off = code % span - radius;
        code /= span;
        zero = zero && off == 0;
        const int coord = coord_rest % extent[d];
        coord_rest /= extent[d];
        const int moved = ((coord + off) % extent[d] + extent[d]) % extent[d];
        dest += moved * stride;
        stride *= extent[d];
      }
      if (!zero) edges.emplace_back(s, dest);
    }
  }
  return edges;
}

std::vector<Edge> star_edges(int ranks, int center) {
  std::vector<Edge> edges;
  for (int r = 0; r < ranks; ++r) {
    if (r == center) continue;
    edges.emplace_back(center, r);
    edges.emplace_back(r, center);
  }
  return edges;
}

std::vector<Edge> ring_edges(int ranks, int width) {
  std::vector<Edge> edges;
  for (int r = 0; r < ranks; ++r) {
    for (int k = 1; k <= width; ++k) edges.emplace_back(r, (r + k) % ranks);
  }
  return edges;
}

}  // namespace nbrcoll::algos::testing
