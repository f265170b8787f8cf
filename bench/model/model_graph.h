// The communicators nbrcoll-model predicts for: nodes of a node model, ranks
// numbered node by node, and the edges of a pattern (RSG, Moore, or the SpMM
// graph of a matrix). Pure: no MPI, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algos/simulator.h"
#include "algos/testing/models.h"
#include "bench/core/sparse.h"
#include "bench/model/model_options.h"

namespace nbrmodel {

using Edge = std::pair<int, int>;  // source -> destination

// "frontier", "mi250", "mi300x", "flat".
std::optional<nbrcoll::algos::testing::Model> parse_node_model(const std::string& name);

// The SpMM graph of `a` over `ranks` ranks (nbrcoll-bench --pattern spmm):
// rows and columns in contiguous blocks (rank p owns [n p / ranks, n (p+1) /
// ranks)); rank p receives from each owner of a column of its rows, once,
// itself excluded. Edges in order of destination, then source.
std::vector<Edge> matrix_edges(const nbrbench::CsrMatrix& a, int ranks);

// Edges the pattern will have at `ranks` ranks (RSG: the expectation), to
// warn before a graph is built.
double expected_edges(const ModelOptions& o, int ranks, const nbrbench::CsrMatrix* matrix);

// The communicator at `nodes` nodes of o.ranks_per_node ranks each (rank i
// of a node on device i mod 8), with the pattern's edges. `matrix` is the
// loaded matrix of --pattern matrix (else unused).
nbrcoll::algos::CommGraph model_graph(const ModelOptions& o, int nodes, const nbrbench::CsrMatrix* matrix);

// Edges and the share that crosses nodes, for the table's heading.
struct GraphSummary {
  std::uint64_t edges = 0;
  std::uint64_t inter_node_edges = 0;
};
GraphSummary summarize_graph(const nbrcoll::algos::CommGraph& g);

}  // namespace nbrmodel
