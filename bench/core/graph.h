// Communication graphs of the allgather benchmarks (one vertex per rank).
// Pure: no MPI. Every rank builds the same whole graph from the same inputs
// and picks its own in- and out-list.
#pragma once

#include <cstdint>
#include <istream>
#include <vector>

namespace nbrbench {

struct Graph {
  int n = 0;
  // in[v]: sources v receives from (one slot each), out[v]: destinations.
  // Duplicate edges appear as repeated entries; self edges are allowed.
  std::vector<std::vector<int>> in;
  std::vector<std::vector<int>> out;
  [[nodiscard]] std::size_t edges() const;
};

// Erdos-Renyi: each ordered pair (i, j), i != j, is an edge i -> j with
// probability `density`, drawn from a generator seeded with `seed`.
Graph random_sparse_graph(int n, double density, std::uint64_t seed);

// Periodic Moore neighbourhood of radius r on a process grid of extent `dims`
// (row-major rank numbering, as MPI_Cart_create without reorder). Every rank
// has (2r+1)^d - 1 out- and in-edges; on small grids several offsets reach the
// same rank (duplicate edges) or the rank itself (self edges): all are kept.
Graph moore_graph(const std::vector<int>& dims, int radius);

// Edge list: "src dst" per line, 0-based ranks, '#' starts a comment.
// Throws std::runtime_error naming the line on bad input or a rank >= n.
Graph read_edge_list(std::istream& in, int n);

// Adds the edge src -> dst (out-list of src, in-list of dst).
void add_edge(Graph& g, int src, int dst);

}  // namespace nbrbench
