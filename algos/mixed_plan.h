// One call may move each origin's block by a different planner: an origin's
// block goes by the linear plan or by the leader plan, chosen per call from
// B(origin), which every rank that touches that block knows (the origin from
// its send count, receivers and forwarders from their home slot of it). The
// choice needs no communication because every party of an origin's fragments
// decides from the same number.
//
// MixedPlan is the union of both plans of one rank, each fragment marked with
// its variant and its origin; select() keeps the fragments of the chosen
// variant of each origin. Tags are remapped to 2 * tag + variant, so the two
// plans' fragments of one (sender, receiver) pair never share a tag.
#pragma once

#include <cstdint>
#include <vector>

#include "plan.h"

namespace nbrcoll::algos {

enum class Variant : std::uint8_t { kLinear = 0, kLeader = 1 };

struct MixedPlan {
  Plan plan;                   // the union; tags 2 * tag + variant; after_recv remapped
  std::vector<int> origins;    // distinct origins this rank sends, receives or copies (sorted)
  std::vector<int> home_slot;  // per origin: -1 for this rank's own block, else its first in-list slot
  // Per fragment of `plan`: its variant and the index of its origin in `origins`.
  std::vector<Variant> recv_variant;
  std::vector<Variant> send_variant;
  std::vector<Variant> copy_variant;
  std::vector<int> recv_origin;
  std::vector<int> send_origin;
  std::vector<int> copy_origin;
};

// `in` is the rank's in-list (kNoRank allowed); both plans are of the same rank.
MixedPlan mix_plans(const Plan& linear, const Plan& leader, const std::vector<int>& in);

// Whether a fragment of variant `v` and origin index `origin` belongs to the
// call that chose `choice` (one variant per origin).
inline bool chosen(Variant v, int origin, const std::vector<Variant>& choice) {
  return choice[static_cast<std::size_t>(origin)] == v;
}

// The plan of one call: per origin (index into mixed.origins) the variant
// that carries its block. after_recv indices refer to the returned plan.
Plan select(const MixedPlan& mixed, const std::vector<Variant>& choice);

// The largest tag of the mixed plan (0 if it has no fragment).
int largest_tag(const MixedPlan& mixed);

}  // namespace nbrcoll::algos
