// The random communicator corpus of the planner's and the engine's tests:
// random nodes (models, unequal sizes, shared and unknown devices), graphs
// (Erdős-Rényi, Moore, star, ring, empty, with duplicate and self edges and
// MPI_PROC_NULL entries), allgather block sizes (0, 1, odd, aligned,
// around the bundle prefix, per rank) and alltoall edge sizes. Case i of a
// seed is the same wherever it is drawn.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algos/simulator.h"
#include "algos/testing/graphs.h"

namespace nbrcoll::algos::testing {

int pick(Rng& rng, int lo, int hi);
bool chance(Rng& rng, double p);

struct RandomCase {
  CommGraph graph;
  std::vector<std::vector<std::uint64_t>> blocks;
  std::string what;
};

// One random communicator with two sets of allgather block sizes; `what`
// describes it.
RandomCase random_case(Rng& rng);

// Alltoall(v) sizes: per rank, per out-list entry.
std::vector<std::vector<std::uint64_t>> random_edge_bytes(Rng& rng, const CommGraph& g);

}  // namespace nbrcoll::algos::testing
