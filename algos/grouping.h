// Pure helpers of the leader planner: who leads which package group of a
// node, and how a source splits its block among the members of a group on its
// own node (Eq. 1 / Eq. 2 of the paper, generalised). Every rank that takes
// part in a delivery calls these with the same arguments and gets the same
// answer, which is what lets both ends of every fragment agree.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algos/plan.h"

namespace nbrcoll::algos {

// Ranks of one node that share a package (GPU). members[0] is the leader:
// lowest device index, lowest rank on ties; the rest follow in (device, rank)
// order.
struct PackageGroup {
  int package = 0;
  std::span<const int> members;  // a run of the ranks grouped
  [[nodiscard]] int leader() const { return members.front(); }
};

// Groups distinct ranks (all on one node) by package: sorts `ranks` in
// (package, device, rank) order and sets `groups` to its runs of one
// package, by package id; the groups view `ranks`. Both are the caller's,
// so a planner that groups many times reuses their memory.
void group_by_package(std::vector<int>& ranks, const std::vector<RankPlace>& places, std::vector<PackageGroup>& groups);

// Integer weights of `members` (distinct ranks on the source's node, none on
// the source's own device) for a block of `source`:
//   Eq. 2: w_i = T_l[src][dev_i] when the sum over the group is > 0;
//   Eq. 1: w_i = n_h - T_h[src][dev_i], n_h = sum of T_h[src][dev_j], when
//          that is not all zero;
//   else (or when a device lies outside the matrices) all ones.
// The sum of the result is always > 0.
std::vector<std::uint32_t> intra_weights(int source, std::span<const int> members, const std::vector<RankPlace>& places,
                                         const NodeMatrices& node);

}  // namespace nbrcoll::algos
