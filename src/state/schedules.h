// A graph's runnable schedules: per family (allgather(v), alltoall(v)) its
// plans mixed (algos::mix_plans) and compiled (algos::compile_schedule).
// Graph creation sets the tag stride from the plans themselves, so the
// schedules wait for the first call (or introspection) of their family:
// a short-lived graph pays only for what its calls use.
// - a graph with every planner (GraphInfo::mixed_lazily): its linear,
//   leader and aggregated plans were built at creation (their cost rows go
//   into the agreement), only mixing and compiling wait;
// - a linear-only graph set up without the agreement (GraphInfo::unagreed:
//   tags all 0, stride 1): its linear plans wait too;
// - an agreed linear-only graph builds both at creation
//   (build_linear_plans).
// Graphs of equal input share their plan set (plan_set.h), so what a
// family's first call built serves every later graph of that input.
#pragma once

#include "algos/plan.h"
#include "algos/schedule.h"
#include "state/comm_state.h"

namespace nbrcoll {

// Both linear plans and their schedules, now (an agreed linear-only graph).
void build_linear_plans(const algos::PlanInput& input, PlanSet& set);

// The plans each family's schedule mixes (a graph with every planner).
std::vector<std::pair<algos::Variant, const algos::Plan*>> family_plans(const PlanSet& set, bool alltoall);

// The schedule calls of this kind run on (`alltoall`: the alltoall family),
// built first where it waits. A rank that runs out of memory building it
// cannot tell its peers, which would wait for its messages: it stops the
// job with one line, as a set-up without agreement does.
const algos::Schedule& schedule_for(const GraphInfo& info, bool alltoall);

// Both linear plans (info.plans->linear, ->alltoall_linear) built, where lazy.
void ensure_linear_plans(const GraphInfo& info);

}  // namespace nbrcoll
