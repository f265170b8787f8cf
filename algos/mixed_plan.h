// One call may move each block by a different planner: linear, leader or
// aggregated, chosen per call from the block's size, which every rank that
// sends or finally receives that block knows (the sender from its send
// count, the receiver from its receive slot). The choice needs no
// communication because both ends decide from the same number; ranks that
// only carry a block on (leaders, owners) follow the fragment they got: a
// leader's forward waits for its receive, and a bundle's header says which
// of its pieces are present.
//
// A *unit* is what one choice covers: allgather, one origin's block (its
// size read from the own send block or the origin's home slot); alltoall,
// one edge's block (read from the own out-edge's send block or the receive
// slot). MixedPlan is the union of the plans of one rank, each fragment
// marked with its variant and unit; bundles (aggregated only) always travel,
// and each of their own or slot pieces is marked with its unit so a call
// knows whether it is present. Tags are remapped to 3 * tag + variant, so
// the plans' messages of one (sender, receiver) pair never share a tag.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "algos/plan.h"
#include "algos/variant.h"

namespace nbrcoll::algos {

// Where a unit's block size is read: a send block (allgather 0, alltoall the
// out-edge) or a receive slot.
struct Unit {
  int send_block = -1;
  int slot = -1;
  friend bool operator==(const Unit&, const Unit&) = default;
};

struct MixedPlan {
  Plan plan;  // the union; tags 3 * tag + variant; after_recv remapped
  bool alltoall = false;
  std::vector<Unit> units;
  // Per fragment of `plan`: its variant and the index of its unit.
  std::vector<Variant> recv_variant;
  std::vector<Variant> send_variant;
  std::vector<Variant> copy_variant;
  std::vector<int> recv_unit;
  std::vector<int> send_unit;
  std::vector<int> copy_unit;
  // Per bundle and piece: the unit of an own piece (sends) or a slot piece
  // (receives) of this rank, -1 for pieces this rank only carries.
  std::vector<std::vector<int>> bundle_send_unit;
  std::vector<std::vector<int>> bundle_recv_unit;
  // Which variants take part (a call may choose only these).
  std::vector<Variant> variants;
};

// The plans of one rank, each with its variant (distinct variants). `in` is
// the rank's in-list (kNoRank allowed), `out_edges` the length of its
// out-list; `alltoall` says which collective the plans serve.
MixedPlan mix_plans(const std::vector<std::pair<Variant, const Plan*>>& plans, const std::vector<int>& in,
                    std::size_t out_edges, bool alltoall);

// Whether a fragment of variant `v` and unit `unit` belongs to the call that
// chose `choice` (one variant per unit).
inline bool chosen(Variant v, int unit, const std::vector<Variant>& choice) {
  return choice[static_cast<std::size_t>(unit)] == v;
}
// Whether a bundle piece marked with `unit` is present in a call (-1: a
// carried piece, present as its header says).
inline bool piece_present(int unit, const std::vector<Variant>& choice) {
  return unit < 0 || choice[static_cast<std::size_t>(unit)] == Variant::kAggregated;
}

// The plan of one call: per unit the variant that carries its block.
// after_recv indices refer to the returned plan. Bundles are kept whole;
// own pieces of units that chose another variant get kPieceAbsent as their
// source, and such slot pieces kPieceAbsent as their slot.
Plan select(const MixedPlan& mixed, const std::vector<Variant>& choice);

// The largest tag of the mixed plan (0 if it has no message).
int largest_tag(const MixedPlan& mixed);
// The same for the mixed plan that mix_plans would make of `plans`, without
// making it: graph creation sets its tag stride from this and compiles the
// schedule only when a call first needs it.
int largest_tag(const std::vector<std::pair<Variant, const Plan*>>& plans);

}  // namespace nbrcoll::algos
