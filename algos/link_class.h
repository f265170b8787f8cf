// Which link class a message between two ranks uses (for plan statistics).
#pragma once

#include "algos/plan.h"

namespace nbrcoll::algos {

// `node` must describe the node of `from` when both ranks share it.
LinkClass classify_link(const std::vector<RankPlace>& places, const NodeMatrices& node, int from, int to);

}  // namespace nbrcoll::algos
