// Read-only access to nbrcoll's state for benchmarks and tests (internal API,
// in the static library; not exported from libnbrcoll.so).
#pragma once

#include <mpi.h>

#include <string>

#include "support/config.h"
#include "algos/cost_model.h"
#include "algos/plan.h"

namespace nbrcoll {

// This rank's plan for `algo` (kLinear, kLeader or kAggregated) on
// `graph_comm`, or nullptr when nbrcoll holds no state for it.
const algos::Plan* plan_for(MPI_Comm graph_comm, Algo algo);

// This rank's neighbor alltoall plan for `algo` on `graph_comm` (the
// aggregated one for kAggregated, else linear), or nullptr when nbrcoll
// holds no state for it.
const algos::Plan* alltoall_plan_for(MPI_Comm graph_comm, Algo algo);

// The cost model's predicted time of every variant on `graph_comm`
// (allgather or alltoall plans), what auto chooses from, and the machine's
// name; nullptr when nbrcoll holds no state for it.
struct CostView {
  const algos::CostTable* model = nullptr;    // every variant
  const algos::CostTable* offered = nullptr;  // auto's choices
  std::string machine;
};
CostView costs_for(MPI_Comm graph_comm, bool alltoall);

}  // namespace nbrcoll
