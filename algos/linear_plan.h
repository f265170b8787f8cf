// The linear plan's rules, shared with the planners that move part of a
// graph's edges linearly (the aggregated plan keeps its intra-node edges and
// the node pairs with a single edge on them).
#pragma once

#include <functional>

#include "algos/plan.h"

namespace nbrcoll::algos {

// The linear plan of the edges source -> dest (source != dest) that `keep`
// accepts, plus every self edge as a local copy. Both ends of an edge must
// give `keep` the same answer for it. Tags number each peer's fragments in
// list order (the k-th occurrence of a peer gets tag k), so a caller that
// adds messages for a peer numbers them from the count of its fragments.
Plan linear_plan_of(const PlanInput& input, bool alltoall, const std::function<bool(int source, int dest)>& keep);

}  // namespace nbrcoll::algos
