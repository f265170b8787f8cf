// A one-line description of a communicator's plans for the debug log:
// fragments and bytes by link class, leader against linear.
#pragma once

#include <string>

#include "state/comm_state.h"

namespace nbrcoll {

std::string summarize_plans(const GraphInfo& info);

// At NBRCOLL_DEBUG=info: that line, and on rank 0 of a graph with every
// planner where auto switches plans (graph creation, a late planning).
void log_plans(const GraphInfo& info);

}  // namespace nbrcoll
