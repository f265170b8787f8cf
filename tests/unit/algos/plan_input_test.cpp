// The planners' input as a key (graph creation shares the plans of graphs
// with equal input, src/state/plan_set.h): every planner is a function of
// its input, equal inputs hash alike, and a change to any field makes
// another input with, in these cases, another hash.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "algos/simulator.h"
#include "algos/testing/random_cases.h"

namespace nbrcoll::algos::testing {
namespace {

TEST(PlanInputKey, EqualInputsGiveEqualPlansAndHashes) {
  Rng rng(20261126);
  for (int i = 0; i < 60; ++i) {
    const RandomCase c = random_case(rng);
    for (const PlanInput& input : make_plan_inputs(c.graph)) {
      const PlanInput copy = input;
      ASSERT_TRUE(copy == input) << c.what;
      ASSERT_EQ(hash_plan_input(copy), hash_plan_input(input)) << c.what;
      // Built twice from equal inputs, every plan is the same.
      EXPECT_EQ(build_linear_plan(copy), build_linear_plan(input)) << c.what;
      EXPECT_EQ(build_leader_plan(copy), build_leader_plan(input)) << c.what;
      EXPECT_EQ(build_aggregated_plans(copy), build_aggregated_plans(input)) << c.what;
      EXPECT_EQ(build_linear_alltoall_plan(copy), build_linear_alltoall_plan(input)) << c.what;
    }
  }
}

TEST(PlanInputKey, EveryFieldCounts) {
  Rng rng(7);
  int checked = 0;
  for (int i = 0; i < 60; ++i) {
    const RandomCase c = random_case(rng);
    for (const PlanInput& input : make_plan_inputs(c.graph)) {
      const std::vector<std::pair<std::string, std::function<void(PlanInput&)>>> changes = {
          {"rank", [](PlanInput& p) { ++p.rank; }},
          {"pairing",
           [](PlanInput& p) {
             p.pairing = p.pairing == EdgePairing::kListOrder ? EdgePairing::kCartesian : EdgePairing::kListOrder;
           }},
          {"a place's node", [](PlanInput& p) { ++p.places.back().node; }},
          {"a place's device", [](PlanInput& p) { ++p.places.front().device; }},
          {"a place's package", [](PlanInput& p) { ++p.places.back().package; }},
          {"the node's links", [](PlanInput& p) { p.node.links.push_back(1); }},
          {"the node's hops", [](PlanInput& p) { p.node.hops.push_back(1); }},
          {"an in-edge more", [](PlanInput& p) { p.in.push_back(p.rank); }},
          {"an out-edge more", [](PlanInput& p) { p.out.push_back(p.rank); }},
          {"an out-edge moved to the in-list",
           [](PlanInput& p) {
             if (p.out.empty()) p.out.push_back(kNoRank);
             p.in.push_back(p.out.back());
             p.out.pop_back();
           }},
          {"a node peer's in-list", [](PlanInput& p) { p.node_in.back().second.push_back(0); }},
          {"a node peer's out-list", [](PlanInput& p) { p.node_out.front().second.push_back(0); }},
          {"the remote leaders", [](PlanInput& p) { ++p.remote_leaders; }},
      };
      for (const auto& [what, change] : changes) {
        PlanInput changed = input;
        change(changed);
        EXPECT_FALSE(changed == input) << what << ", " << c.what;
        EXPECT_NE(hash_plan_input(changed), hash_plan_input(input)) << what << ", " << c.what;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace nbrcoll::algos::testing
