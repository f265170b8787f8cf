// What one call runs: the variant of every unit of the rank's schedule
// (algos/mixed_plan.h: a unit is one origin's block, or one edge's block
// for alltoall) and whether the call's bundles travel. Every rank of a call
// decides both alike without talking (call/decide.cpp); a call without
// bundles never chooses the aggregated variant.
#pragma once

#include <vector>

#include "algos/variant.h"

namespace nbrcoll::engine {

struct CallChoice {
  std::vector<algos::Variant> variant;  // per unit
  bool bundles = false;
};

}  // namespace nbrcoll::engine
