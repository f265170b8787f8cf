// The ways nbrcoll can move one block: the one name of each, used by the
// planner, the cost model, the engine and the configuration alike.
#pragma once

#include <cstdint>

namespace nbrcoll::algos {

enum class Variant : std::uint8_t {
  kLinear = 0,      // one message per edge, as the MPI's own
  kLeader = 1,      // the topology-aware hierarchical plan
  kAggregated = 2,  // node-aware: one bundle per node pair
};
inline constexpr int kVariantCount = 3;
inline constexpr Variant kAllVariants[kVariantCount] = {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
const char* variant_name(Variant v);  // "linear", "leader", "aggregated"

}  // namespace nbrcoll::algos
