// Read-only access to nbrcoll's state for benchmarks and tests (internal API,
// in the static library; not exported from libnbrcoll.so).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

#include "algos/cost_model.h"
#include "algos/plan.h"
#include "support/config.h"

namespace nbrcoll {

// This rank's plan of `variant` on `graph_comm`, or nullptr when nbrcoll
// holds no state for it.
const algos::Plan* plan_for(MPI_Comm graph_comm, algos::Variant variant);

// This rank's neighbor alltoall plan of `variant` on `graph_comm` (the
// aggregated one for kAggregated, else linear: alltoall has no leader
// plan), or nullptr when nbrcoll holds no state for it.
const algos::Plan* alltoall_plan_for(MPI_Comm graph_comm, algos::Variant variant);

// The cost model's predicted time of every variant on `graph_comm`
// (allgather or alltoall plans), what auto chooses from, and the machine's
// name; nullptr when nbrcoll holds no state for it.
struct CostView {
  const algos::CostTable* model = nullptr;    // every variant
  const algos::CostTable* offered = nullptr;  // auto's choices
  std::string machine;
};
CostView costs_for(MPI_Comm graph_comm, bool alltoall);

// Whether `graph_comm`'s handle holds every planner's plans (at creation,
// or since it planned late: state/late_plans.h); false where nbrcoll holds
// no state for it or only the linear plans.
bool holds_every_plan(MPI_Comm graph_comm);
// Whether `graph_comm` was set up without the agreement (its serial drawn
// from its parent's creation line: state/creation_line.h); false where
// nbrcoll holds no state for it.
bool set_up_without_agreement(MPI_Comm graph_comm);
// Whether `graph_comm`'s blocking calls under auto may still change plan by
// themselves (call/tuning.h: tuning_busy), this rank's view; false where
// nbrcoll holds no state for it.
bool tuning_busy(MPI_Comm graph_comm);
// Whether every tuner of `graph_comm`'s handle is closed, this rank's view
// (call/tuning.h: tuning_closed); true where nbrcoll holds no state for it.
bool tuning_closed(MPI_Comm graph_comm);
// Whether auto may give nonblocking and persistent calls (alltoalls or
// allgathers) on `graph_comm` a plan that forwards (call/decide.h:
// nonblocking_may_forward); false where nbrcoll holds no state for it.
bool nonblocking_forwards_on(MPI_Comm graph_comm, bool alltoall);
// The variant auto's measured choice settled on for blocks of `bytes` on
// `graph_comm` (the allgathers' or the alltoalls'), if it settled on one.
std::optional<algos::Variant> tuned_variant(MPI_Comm graph_comm, bool alltoall, std::uint64_t bytes);
// How many scratches `graph_comm`'s nonblocking calls have made (call/scratch.h:
// ScratchPool::made); 0 where nbrcoll holds no state for it.
std::size_t nonblocking_scratches(MPI_Comm graph_comm);
// The blocking calls a graph across nodes runs linear before it plans, as
// every process agreed at MPI_Init (0: graphs plan at creation).
int calls_before_late_plans();

}  // namespace nbrcoll
