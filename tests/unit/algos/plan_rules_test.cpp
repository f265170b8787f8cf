// The cases the paper leaves open, each decided in algos/README.md, and the
// invariants the executor relies on.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "algos/grouping.h"
#include "algos/plan_stats.h"
#include "algos/testing/graphs.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

CommGraph two_mi250_nodes(const std::vector<Edge>& edges) {
  CommGraph g = make_uniform_comm(Model::kMi250, 2, 8);
  set_edges(g, edges);
  return g;
}

TEST(PlanRules, RemoteGroupWithOnlyOddGcdsStillGetsALeader) {
  const CommGraph g = two_mi250_nodes({{9, 1}, {9, 3}});
  const std::set<Moved> want = {{9, 1, 9, 0, 512}, {9, 3, 9, 512, 1024}, {1, 3, 9, 0, 512}, {3, 1, 9, 512, 1024}};
  EXPECT_EQ(moved(build_plans(g, build_leader_plan), kKiB), want);
  expect_checks_pass(g);
}

TEST(PlanRules, SingleDestinationOnANodeIsSentDirectly) {
  const CommGraph g = two_mi250_nodes({{9, 5}, {2, 6}});
  const std::set<Moved> want = {{9, 5, 9, 0, 1024}, {2, 6, 2, 0, 1024}};
  EXPECT_EQ(moved(build_plans(g, build_leader_plan), kKiB), want);
  expect_checks_pass(g);
}

TEST(PlanRules, DuplicateEdgesTravelOnceAndAreCopiedLocally) {
  const CommGraph g = two_mi250_nodes({{9, 0}, {9, 1}, {9, 0}, {9, 1}, {9, 0}});
  const auto plans = build_plans(g, build_leader_plan);
  const std::set<Moved> want = {{9, 0, 9, 0, 1024}, {0, 1, 9, 0, 1024}};
  EXPECT_EQ(moved(plans, kKiB), want);
  EXPECT_EQ(plans[0].copies.size(), 2u);
  EXPECT_EQ(plans[1].copies.size(), 1u);
  for (const LocalCopy& c : plans[0].copies) EXPECT_EQ(c.from_slot, 0);
  const CaseOutcome out = check_case(g, {same_blocks(g, kKiB)});
  ASSERT_TRUE(out.errors.empty()) << joined(out.errors);
  EXPECT_EQ(out.leader.stats.at(LinkClass::kNetwork).messages, 1u);
  EXPECT_EQ(out.linear.stats.at(LinkClass::kNetwork).messages, 5u);
}

TEST(PlanRules, SelfEdgesAreLocalCopiesFromTheSendBuffer) {
  const CommGraph g = two_mi250_nodes({{3, 3}, {3, 4}, {3, 3}});
  const auto plans = build_plans(g, build_leader_plan);
  ASSERT_EQ(plans[3].copies.size(), 2u);
  for (const LocalCopy& c : plans[3].copies) EXPECT_EQ(c.from_slot, -1);
  EXPECT_EQ(moved(plans, kKiB), (std::set<Moved>{{3, 4, 3, 0, 1024}}));
  expect_checks_pass(g);
}

// Node 0: ranks 0..4 on devices 0, 0, 1, 1, 2; node 1: rank 5 on device 0.
TEST(PlanRules, RanksSharingADevice) {
  CommGraph g = make_comm({{Model::kMi250, {0, 0, 1, 1, 2}}, {Model::kMi250, {0}}});
  set_edges(g, {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {5, 0}, {5, 1}, {5, 2}});
  const auto plans = build_plans(g, build_leader_plan);
  // Intra: rank 1 shares rank 0's device and gets the block directly; ranks 2
  // and 3 (both on device 1, 4 links each) split it and swap halves; rank 4
  // (package 1, alone) gets it directly.
  const std::set<Moved> intra = {{0, 1, 0, 0, 1024}, {0, 2, 0, 0, 512},    {0, 3, 0, 512, 1024},
                                 {2, 3, 0, 0, 512},  {3, 2, 0, 512, 1024}, {0, 4, 0, 0, 1024}};
  EXPECT_EQ(moved_of(plans, kKiB, 0), intra);
  // Remote: one package group {0, 1, 2} led by rank 0 (device 0, lowest rank).
  const std::set<Moved> remote = {{5, 0, 5, 0, 1024}, {0, 1, 5, 0, 1024}, {0, 2, 5, 0, 1024}};
  EXPECT_EQ(moved_of(plans, kKiB, 5), remote);
  expect_checks_pass(g);
}

TEST(PlanRules, UnequalNodesAndNodesOfOneRank) {
  CommGraph g =
      make_comm({{Model::kFrontier, {0}}, {Model::kFrontier, {0, 1, 2}}, {Model::kFrontier, {0, 1, 2, 3, 4, 5, 6, 7}}});
  Rng rng(7);
  set_edges(g, erdos_renyi_edges(g.size(), 0.6, rng), &rng, 0.1);
  expect_checks_pass(g);
  // The one-rank node's block reaches every other node once.
  const auto plans = build_plans(g, build_leader_plan);
  std::map<int, std::uint64_t> to_node;
  for (const Moved& m : moved_of(plans, kKiB, 0)) {
    if (m.from == 0) to_node[g.places[static_cast<std::size_t>(m.to)].node] += m.end - m.begin;
  }
  for (const auto& [node, bytes] : to_node) EXPECT_EQ(bytes, kKiB) << "node " << node;
}

TEST(PlanRules, ProcNullSlotsGetNothing) {
  CommGraph g = two_mi250_nodes({{9, 0}, {1, 0}});
  g.in[0] = {kNoRank, 9, kNoRank, 1, kNoRank};
  g.out[9] = {kNoRank, 0};
  const auto plans = build_plans(g, build_leader_plan);
  for (const Recv& r : plans[0].recvs) EXPECT_NE(g.in[0][static_cast<std::size_t>(r.slot)], kNoRank);
  expect_checks_pass(g);
}

TEST(PlanRules, InvariantsOnADenseGraph) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 4, 8);
  Rng rng(11);
  auto edges = erdos_renyi_edges(g.size(), 0.5, rng);
  edges.emplace_back(3, 3);
  edges.emplace_back(edges.front());
  set_edges(g, edges, &rng, 0.05);
  const auto plans = build_plans(g, build_leader_plan);
  for (const Plan& p : plans) {
    const auto& in = g.in[static_cast<std::size_t>(p.rank)];
    auto home = [&](int origin) { return static_cast<int>(std::find(in.begin(), in.end(), origin) - in.begin()); };
    // Tags: 0..n-1 per peer, in each direction.
    std::map<int, std::vector<int>> send_tags;
    std::map<int, std::vector<int>> recv_tags;
    for (const Send& s : p.sends) send_tags[s.peer].push_back(s.tag);
    for (const Recv& r : p.recvs) recv_tags[r.peer].push_back(r.tag);
    for (auto* tags : {&send_tags, &recv_tags}) {
      for (auto& [peer, list] : *tags) {
        std::sort(list.begin(), list.end());
        for (std::size_t i = 0; i < list.size(); ++i)
          ASSERT_EQ(list[i], static_cast<int>(i)) << "rank " << p.rank << " peer " << peer;
      }
    }
    // Only destinations of an origin touch its block, always in its home slot.
    for (const Recv& r : p.recvs) EXPECT_EQ(r.slot, home(r.origin));
    for (const Send& s : p.sends) {
      if (s.origin == p.rank) continue;
      EXPECT_EQ(s.slot, home(s.origin));
      ASSERT_GE(s.after_recv, 0);
      EXPECT_EQ(p.recvs[static_cast<std::size_t>(s.after_recv)].share, s.share);
    }
  }
  expect_checks_pass(g);
}

TEST(PlanRules, IntraWeights) {
  const NodeModel mi250 = node_model(Model::kMi250);
  std::vector<RankPlace> places;
  for (int d = 0; d < 8; ++d) places.push_back({0, d, d / 2});
  places.push_back({0, 9, 9});  // a device outside the matrices
  // Eq. 2 (links): GCD 1 -> {2, 3}: 0 and 1.
  EXPECT_EQ(intra_weights(1, std::vector<int>{2, 3}, places, mi250.matrices), (std::vector<std::uint32_t>{0, 1}));
  // Eq. 2: GCD 0 -> {4, 5}: links 2 and 0.
  EXPECT_EQ(intra_weights(0, std::vector<int>{4, 5}, places, mi250.matrices), (std::vector<std::uint32_t>{2, 0}));
  // Eq. 1 (hops): GCD 6 -> {4, 5}: hops 2 and 2 -> n_h = 4, weights 2 and 2.
  EXPECT_EQ(intra_weights(6, std::vector<int>{4, 5}, places, mi250.matrices), (std::vector<std::uint32_t>{2, 2}));
  // Unknown device: equal weights.
  EXPECT_EQ(intra_weights(8, std::vector<int>{4, 5}, places, mi250.matrices), (std::vector<std::uint32_t>{1, 1}));
  // No links, no hops: equal weights.
  NodeMatrices zero{8, std::vector<int>(64, 0), std::vector<int>(64, 0)};
  EXPECT_EQ(intra_weights(0, std::vector<int>{2, 3, 4}, places, zero), (std::vector<std::uint32_t>{1, 1, 1}));
}

TEST(PlanRules, HomeSlotIsAnOriginsFirstSlot) {
  const HomeSlots home({5, kNoRank, 3, 5, 3, 7});
  EXPECT_EQ(home.find(5), 0);
  EXPECT_EQ(home.find(3), 2);
  EXPECT_EQ(home.find(7), 5);
  EXPECT_EQ(home.find(4), -1);
  EXPECT_EQ(home.find(kNoRank), -1) << "MPI_PROC_NULL entries have no home";
  EXPECT_EQ(HomeSlots({}).find(0), -1);
}

TEST(PlanRules, GroupByPackageElectsLowestDeviceThenLowestRank) {
  std::vector<RankPlace> places = {{0, 3, 1}, {0, 2, 1}, {0, 2, 1}, {0, 7, 3}, {0, 5, 2}};
  std::vector<int> ranks = {0, 1, 2, 3, 4};
  std::vector<PackageGroup> groups = {{9, {}}};  // replaced, not appended to
  group_by_package(ranks, places, groups);
  const auto members = [&groups](std::size_t g) {
    return std::vector<int>(groups[g].members.begin(), groups[g].members.end());
  };
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(members(0), (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(members(1), (std::vector<int>{4}));
  EXPECT_EQ(members(2), (std::vector<int>{3}));
  EXPECT_EQ(groups[1].package, 2);
}

TEST(PlanStatsTest, Fig5PerLinkClass) {
  const CommGraph g = two_mi250_nodes({{9, 0}, {9, 1}, {9, 2}, {9, 3}});
  const auto plans = build_plans(g, build_leader_plan);
  const PlanStats source = compute_stats(plans[9], kKiB);
  EXPECT_EQ(source.at(LinkClass::kNetwork).messages, 2u);
  EXPECT_EQ(source.at(LinkClass::kNetwork).bytes, kKiB);
  const PlanStats leader = compute_stats(plans[0], kKiB);
  EXPECT_EQ(leader.at(LinkClass::kMultiHop).messages, 1u);  // 0 -> 2: no link on MI250
  EXPECT_EQ(leader.at(LinkClass::kMultiHop).bytes, kKiB / 2);
  EXPECT_EQ(leader.at(LinkClass::kSamePackage).messages, 2u);  // both halves to 1
  EXPECT_EQ(leader.at(LinkClass::kSamePackage).bytes, kKiB);
  EXPECT_EQ(compute_stats(plans[9], 0).messages(), 0u) << "empty fragments are not sent";
  EXPECT_FALSE(format_stats(leader).empty());
}

}  // namespace
}  // namespace nbrcoll::algos::testing
