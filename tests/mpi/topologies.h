// Cartesian and graph communicators for the MPI test programs, each made
// through the MPI_ call (nbrcoll's where it is linked or preloaded):
// MPI_Cart_create (1-D, 2-D, 3-D; periodic or not; reorder true), a sub-grid
// of MPI_Cart_sub, an MPI_Comm_dup of a Cartesian communicator, MPI_Graph_create
// (duplicate edges and self loops), and a grid smaller than the world (the
// processes outside get MPI_COMM_NULL). Each is described as a Graph in its
// own ranks, built in closed form from the standard's rules (row-major
// coordinates; per dimension the neighbour at -1, then +1; MPI_PROC_NULL
// past a non-periodic border; MPI_Graph_neighbors' lists), which every rank
// checks against the MPI's MPI_Cart_coords / MPI_Cart_shift /
// MPI_Graph_neighbors, and comes with a plain communicator of the same
// ranks for the point-to-point reference.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "algos/testing/cartesian_lists.h"
#include "tests/mpi/mpi_check.h"
#include "tests/mpi/test_graphs.h"

namespace nbt {

struct Topology {
  Graph graph;
  MPI_Comm comm = MPI_COMM_NULL;  // MPI_COMM_NULL on a process outside it
  MPI_Comm ref = MPI_COMM_NULL;   // the same ranks, no topology (PMPI_Comm_split)
};

// The lists of a Cartesian grid, every rank's, in its own ranks.
inline Graph cartesian_graph(const std::string& name, const std::vector<int>& dims, const std::vector<int>& periods) {
  int size = 1;
  for (const int d : dims) size *= d;
  Graph g = empty_graph(size, name);
  g.cartesian = true;
  for (int r = 0; r < size; ++r) {
    g.out[static_cast<std::size_t>(r)] = nbrcoll::algos::testing::cartesian_neighbours(dims, periods, r, MPI_PROC_NULL);
    g.in[static_cast<std::size_t>(r)] = g.out[static_cast<std::size_t>(r)];
  }
  for (const int p : periods) g.has_null = g.has_null || p == 0;
  return g;
}

// This process's rank in `t.comm`, its reference communicator, and its
// lists against the MPI's (Cartesian: coordinates and shifts; graph:
// neighbours).
inline void finish_topology(Topology& t) {
  if (t.comm == MPI_COMM_NULL) return;
  int me = 0;
  MPI_Comm_rank(t.comm, &me);
  t.graph.self = me;
  PMPI_Comm_split(t.comm, 0, me, &t.ref);
  const std::string at = t.graph.name + " (rank " + std::to_string(g_rank) + ")";
  const auto& mine = t.graph.out[static_cast<std::size_t>(me)];
  int kind = MPI_UNDEFINED;
  MPI_Topo_test(t.comm, &kind);
  if (t.graph.cartesian) {
    int dims = 0;
    MPI_Cartdim_get(t.comm, &dims);
    check(kind == MPI_CART && 2 * static_cast<std::size_t>(dims) == mine.size(), at + ": not the Cartesian grid made");
    for (int d = 0; d < dims && 2 * static_cast<std::size_t>(d) < mine.size(); ++d) {
      int minus = 0;
      int plus = 0;
      MPI_Cart_shift(t.comm, d, 1, &minus, &plus);
      check(minus == mine[2 * static_cast<std::size_t>(d)] && plus == mine[2 * static_cast<std::size_t>(d) + 1],
            at + ": MPI_Cart_shift differs from the closed form in dimension " + std::to_string(d));
    }
    return;
  }
  int degree = 0;
  MPI_Graph_neighbors_count(t.comm, me, &degree);
  std::vector<int> neighbours(static_cast<std::size_t>(degree) + 1);
  MPI_Graph_neighbors(t.comm, me, degree, neighbours.data());
  neighbours.resize(static_cast<std::size_t>(degree));
  check(kind == MPI_GRAPH && neighbours == mine, at + ": MPI_Graph_neighbors differs from the graph made");
}

inline Topology cart_create(const std::string& name, const std::vector<int>& dims, const std::vector<int>& periods,
                            int reorder) {
  Topology t{cartesian_graph(name, dims, periods)};
  MPI_Cart_create(MPI_COMM_WORLD, static_cast<int>(dims.size()), dims.data(), periods.data(), reorder, &t.comm);
  finish_topology(t);
  return t;
}

// A grid of MPI_Dims_create's dimensions over every process.
inline std::vector<int> balanced_dims(int ndims) {
  std::vector<int> dims(static_cast<std::size_t>(ndims), 0);
  MPI_Dims_create(g_size, ndims, dims.data());
  return dims;
}

// MPI_Graph_create's graph: a ring, each rank and its partner (rank ^ 1)
// once more (a duplicate edge), a self loop on even ranks; symmetric.
struct GraphCreateRing {
  Graph graph = empty_graph(g_size, "graph-create");
  std::vector<int> index;
  std::vector<int> edges;
  GraphCreateRing() {
    for (int r = 0; r < g_size; ++r) {
      auto& list = graph.out[static_cast<std::size_t>(r)];
      if ((r ^ 1) < g_size) list.push_back(r ^ 1);
      list.push_back((r + 1) % g_size);
      if (r % 2 == 0) list.push_back(r);
      list.push_back((r - 1 + g_size) % g_size);
      graph.in[static_cast<std::size_t>(r)] = list;
      edges.insert(edges.end(), list.begin(), list.end());
      index.push_back(static_cast<int>(edges.size()));
    }
  }
  // Over MPI_COMM_WORLD, reorder true.
  [[nodiscard]] MPI_Comm create() const {
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Graph_create(MPI_COMM_WORLD, g_size, index.data(), edges.data(), 1, &c);
    return c;
  }
};

// Every topology of the tests; collective over MPI_COMM_WORLD.
inline std::vector<Topology> make_topologies() {
  std::vector<Topology> ts;
  ts.push_back(cart_create("cart-1d-periodic", {g_size}, {1}, 0));
  ts.push_back(cart_create("cart-1d-open", {g_size}, {0}, 1));
  ts.push_back(cart_create("cart-2d-periodic", balanced_dims(2), {1, 1}, 1));
  ts.push_back(cart_create("cart-2d-mixed", balanced_dims(2), {0, 1}, 1));
  ts.push_back(cart_create("cart-3d-periodic", balanced_dims(3), {1, 1, 1}, 1));
  // A duplicate of the last grid: its own handle, the same lists.
  Topology dup{ts.back().graph};
  dup.graph.name = "cart-3d-periodic-dup";
  MPI_Comm_dup(ts.back().comm, &dup.comm);
  finish_topology(dup);
  ts.push_back(dup);
  // Sub-grids of a 3-D grid (periodic, open, periodic), dimensions 0 and 2 kept.
  const std::vector<int> d3 = balanced_dims(3);
  MPI_Comm grid = MPI_COMM_NULL;
  const int p3[3] = {1, 0, 1};
  MPI_Cart_create(MPI_COMM_WORLD, 3, d3.data(), p3, 0, &grid);
  Topology sub{cartesian_graph("cart-sub-of-3d", {d3[0], d3[2]}, {1, 1})};
  const int keep[3] = {1, 0, 1};
  MPI_Cart_sub(grid, keep, &sub.comm);
  MPI_Comm_free(&grid);
  finish_topology(sub);
  ts.push_back(sub);
  // A grid of all processes but the last, which gets MPI_COMM_NULL.
  if (g_size >= 3) ts.push_back(cart_create("cart-1d-smaller", {g_size - 1}, {1}, 0));
  const GraphCreateRing ring;
  Topology graph{ring.graph};
  graph.comm = ring.create();
  finish_topology(graph);
  ts.push_back(graph);
  return ts;
}

inline void free_topologies(std::vector<Topology>& ts) {
  for (Topology& t : ts) {
    if (t.comm != MPI_COMM_NULL) MPI_Comm_free(&t.comm);
    if (t.ref != MPI_COMM_NULL) PMPI_Comm_free(&t.ref);
  }
}

}  // namespace nbt
