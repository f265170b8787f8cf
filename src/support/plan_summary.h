// A one-line description of a communicator's plans for the debug log:
// fragments and bytes by link class, leader against linear.
#pragma once

#include <string>

#include "state/comm_state.h"

namespace nbrcoll {

std::string summarize_plans(const GraphInfo& info);

}  // namespace nbrcoll
