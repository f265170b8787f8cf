// Canonical tags: each (sender, receiver) pair numbers its fragments 0, 1, ...
// in the order (origin, share.lo, share.hi, share.total). A sender and its
// receiver plan the same set of fragments for their pair from their own
// information, so they number them identically without talking.
#pragma once

#include "algos/plan.h"

namespace nbrcoll::algos {

// Overwrites every Send::tag and Recv::tag of `plan`. Requires the key above
// to be unique per pair (true for every plan built here). O(n log n).
void assign_canonical_tags(Plan& plan);

}  // namespace nbrcoll::algos
