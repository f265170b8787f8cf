// Communicators for the planner's tests and benchmarks: nodes of a model with
// a device per rank, and graph generators (Erdős-Rényi, Moore, star, ring).
#pragma once

#include <random>
#include <utility>
#include <vector>

#include "algos/simulator.h"
#include "algos/testing/models.h"

namespace nbrcoll::algos::testing {

using Edge = std::pair<int, int>;  // source -> destination
using Rng = std::mt19937_64;

struct NodeSpec {
  Model model = Model::kFrontier;
  std::vector<int> devices;  // device of each rank on the node (may repeat)
};

// Ranks are numbered node by node. No edges yet.
CommGraph make_comm(const std::vector<NodeSpec>& nodes);
// `nodes` nodes of `ranks_per_node` ranks, rank i of a node on device i % 8.
CommGraph make_uniform_comm(Model model, int nodes, int ranks_per_node);

// Sets every in-list and out-list from `edges` (duplicates and self edges
// kept). With an rng the lists are shuffled and kNoRank entries inserted
// with probability `null_rate` per entry.
void set_edges(CommGraph& graph, const std::vector<Edge>& edges, Rng* rng = nullptr, double null_rate = 0.0);

// The lists of a Cartesian communicator of grid `dims` over every rank of
// `graph` (the product of dims must be its size; numbering row-major, the
// last dimension fastest, as MPI_Cart_create's): per dimension the
// neighbour at -1, then at +1 (MPI_Cart_shift's order), kNoRank past a
// non-periodic border; in-list = out-list; pairing kCartesian.
void set_cartesian(CommGraph& graph, const std::vector<int>& dims, const std::vector<bool>& periods);

// Every ordered pair s != d with probability `density`.
std::vector<Edge> erdos_renyi_edges(int ranks, double density, Rng& rng);
// Periodic `dims`-dimensional grid as square as possible, all offsets within
// Chebyshev distance `radius` (small grids give duplicate and self edges).
std::vector<Edge> moore_edges(int ranks, int dims, int radius);
// Center to all and all to center.
std::vector<Edge> star_edges(int ranks, int center);
// Each rank to the next `width` ranks (mod ranks).
std::vector<Edge> ring_edges(int ranks, int width);

}  // namespace nbrcoll::algos::testing
