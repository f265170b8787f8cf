#include "bench/model/model_graph.h"

#include <algorithm>
#include <cmath>

#include "algos/testing/graphs.h"

namespace nbrmodel {

namespace testing = nbrcoll::algos::testing;

namespace {

// Start of block p of n items over `parts` blocks, as the SpMM bench splits them.
std::int64_t block_start(std::int64_t n, int p, int parts) {
  return n * p / parts;
}

}  // namespace

std::optional<testing::Model> parse_node_model(const std::string& name) {
  if (name == "frontier") return testing::Model::kFrontier;
  if (name == "mi250") return testing::Model::kMi250;
  if (name == "mi300x") return testing::Model::kMi300x;
  if (name == "flat") return testing::Model::kFlat;
  return std::nullopt;
}

std::vector<Edge> matrix_edges(const nbrbench::CsrMatrix& a, int ranks) {
  std::vector<std::int64_t> col_start(static_cast<std::size_t>(ranks) + 1);
  for (int p = 0; p <= ranks; ++p) col_start[static_cast<std::size_t>(p)] = block_start(a.cols, p, ranks);
  const auto owner = [&](std::int64_t col) {
    return static_cast<int>(std::upper_bound(col_start.begin(), col_start.end(), col) - col_start.begin()) - 1;
  };
  std::vector<Edge> edges;
  std::vector<int> sources;
  for (int p = 0; p < ranks; ++p) {
    sources.clear();
    const auto first = a.row_ptr[static_cast<std::size_t>(block_start(a.rows, p, ranks))];
    const auto last = a.row_ptr[static_cast<std::size_t>(block_start(a.rows, p + 1, ranks))];
    for (auto e = first; e < last; ++e) sources.push_back(owner(a.col[static_cast<std::size_t>(e)]));
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    for (const int s : sources)
      if (s != p) edges.emplace_back(s, p);
  }
  return edges;
}

double expected_edges(const ModelOptions& o, int ranks, const nbrbench::CsrMatrix* matrix) {
  if (o.pattern == "rsg") return rsg_density(o, ranks) * ranks * (ranks - 1.0);
  if (o.pattern == "moore") return ranks * (std::pow(2.0 * o.radius + 1, o.dims) - 1);
  return matrix != nullptr ? static_cast<double>(matrix_edges(*matrix, ranks).size()) : 0;
}

nbrcoll::algos::CommGraph model_graph(const ModelOptions& o, int nodes, const nbrbench::CsrMatrix* matrix) {
  const int ranks = nodes * o.ranks_per_node;
  nbrcoll::algos::CommGraph g = testing::make_uniform_comm(*parse_node_model(o.node), nodes, o.ranks_per_node);
  std::vector<Edge> edges;
  if (o.pattern == "rsg") {
    testing::Rng rng(o.seed);
    edges = testing::erdos_renyi_edges(ranks, rsg_density(o, ranks), rng);
  } else if (o.pattern == "moore") {
    edges = testing::moore_edges(ranks, o.dims, o.radius);
  } else {
    edges = matrix_edges(*matrix, ranks);
  }
  testing::set_edges(g, edges);
  return g;
}

GraphSummary summarize_graph(const nbrcoll::algos::CommGraph& g) {
  GraphSummary s;
  for (int r = 0; r < g.size(); ++r) {
    for (const int d : g.out[static_cast<std::size_t>(r)]) {
      if (d == nbrcoll::algos::kNoRank) continue;
      ++s.edges;
      if (g.places[static_cast<std::size_t>(d)].node != g.places[static_cast<std::size_t>(r)].node)
        ++s.inter_node_edges;
    }
  }
  return s;
}

}  // namespace nbrmodel
