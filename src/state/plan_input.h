// What the planners are given (algos::PlanInput): this rank's lists as the
// planners number ranks, every rank's place, and this node's topology.
#pragma once

#include "algos/plan.h"
#include "topo/node_topology.h"

namespace nbrcoll {

// The node's topology (NBRCOLL_TOPO, else what the machine says), loaded
// once per process; a bad setting is warned about once.
const topo::NodeTopology& node_topology();

// An MPI rank in a neighbour list as the planners number it.
int to_plan_rank(int mpi_rank);

// This node's devices, links and hops into `input`, and the leaders a
// block splits over on another node (agreed at MPI_Init).
void set_node(algos::PlanInput& input);

}  // namespace nbrcoll
