// The plans of a linear-only graph (graph_setup.cpp: its calls can never
// choose another variant): the linear plan of the allgather family and of
// the alltoall family, each compiled into its schedule. A graph set up with
// the agreement builds both at creation (their tags set its stride); one set
// up without it (GraphInfo::unagreed: tags all 0, stride 1) builds each
// kind the first time something needs it (a call of that kind,
// introspection), so a short-lived graph pays only for what its calls use.
#pragma once

#include "algos/plan.h"
#include "algos/schedule.h"
#include "state/comm_state.h"

namespace nbrcoll {

// Both linear plans and their schedules, now (an agreed linear-only graph).
void build_linear_plans(const algos::PlanInput& input, GraphInfo& info);

// The schedule calls of this kind run on (`alltoall`: the alltoall family),
// built first where it is made lazily. A rank that runs out of memory
// building it cannot tell its peers, which would wait for its messages: it
// stops the job with one line, as a set-up without agreement does.
const algos::Schedule& schedule_for(const GraphInfo& info, bool alltoall);

// Both linear plans (info.linear, info.alltoall_linear) built, where lazy.
void ensure_linear_plans(const GraphInfo& info);

}  // namespace nbrcoll
