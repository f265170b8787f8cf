// The measured choice of `auto` on a communicator handle (algos/tuner.h
// has the rule): a tuner per handle and per family of calls (allgathers,
// alltoalls), made at the family's first tunable call, and the agreement
// that takes the slowest rank's times, a blocking allreduce over the graph
// communicator at the calls the tuner names (every rank makes it there:
// it is the same call on the handle everywhere). Tunable: a blocking call
// under auto, with the cost model, across nodes, on the host, where
// NBRCOLL_TUNE is on (decide.cpp says which calls reach it).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "algos/tuner.h"
#include "state/comm_state.h"

namespace nbrcoll {

struct HandleTuning {
  std::shared_ptr<const GraphInfo> info;  // whose tables the tuners read
  std::optional<algos::Tuner> gather;
  std::optional<algos::Tuner> alltoall;
};

// The handle's tuner for the family of `alltoall`, made on first use (and
// anew when the handle took a planned graph: late_plans.h); nullptr where
// NBRCOLL_TUNE is off.
algos::Tuner* tuner_for(CommState& state, bool alltoall);

// The handle's tuner for the family of `alltoall` if one was made for the
// graph it holds now; nullptr otherwise (for the introspection).
const algos::Tuner* existing_tuner(const CommState& state, bool alltoall);

// The agreement, where the tuner says one is due: the maximum of every
// rank's payload over `graph_comm`, and the tuner settles on it. At NBRCOLL_DEBUG=info the graph's
// rank 0 says what each settled size took and why, one line each.
void agree_if_due(algos::Tuner& tuner, MPI_Comm graph_comm, const GraphInfo& info, bool alltoall);

// Monotonic nanoseconds, for a trial call's time.
std::uint64_t tuning_clock_ns();

// Whether the handle's calls may still change plan by themselves: it plans
// late and has not yet, or a tuner tries, has met a size it has not
// settled, or has met a settled aggregated size in a mixed call that it
// will try again. This rank's view (a benchmark asks every rank before it
// times).
bool tuning_busy(const CommState& state);

}  // namespace nbrcoll
