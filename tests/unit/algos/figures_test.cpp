// The paper's Figures 2-6 on the MI250 node model with the paper's GCD
// numbers: two nodes of 8 GCDs, rank = 8 * node + GCD, so rank 9 is "G_9", a
// GCD on the other node. Each test asserts every message of the source's
// block for a 1024-byte block, then runs the whole-communicator checks.
#include <gtest/gtest.h>

#include "algos/link_class.h"
#include "algos/testing/graphs.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

CommGraph figure_comm(int source, const std::vector<int>& dests) {
  CommGraph g = make_uniform_comm(Model::kMi250, 2, 8);
  std::vector<Edge> edges;
  for (const int d : dests) edges.emplace_back(source, d);
  set_edges(g, edges);
  return g;
}

LinkClass link_of(const std::vector<Plan>& plans, int from, int to) {
  for (const Send& s : plans[static_cast<std::size_t>(from)].sends) {
    if (s.peer == to) return s.link;
  }
  ADD_FAILURE() << "no send " << from << "->" << to;
  return LinkClass::kNetwork;
}

// Fig. 2: no link from GCD 6 to 4 or 5: Eq. 1 (hops 2 and 2) splits the block
// in halves; 4 and 5 exchange them.
TEST(PaperFigures, Fig2IntraNodeHopsSplit) {
  const CommGraph g = figure_comm(6, {4, 5});
  const auto plans = build_plans(g, build_leader_plan);
  const std::set<Moved> want = {{6, 4, 6, 0, 512}, {6, 5, 6, 512, 1024}, {4, 5, 6, 0, 512}, {5, 4, 6, 512, 1024}};
  EXPECT_EQ(moved(plans, kKiB), want);
  EXPECT_EQ(link_of(plans, 6, 4), LinkClass::kMultiHop);
  EXPECT_EQ(link_of(plans, 4, 5), LinkClass::kSamePackage);
  expect_checks_pass(g);
}

// Fig. 3: GCD 1 has a link to 3 but not to 2: Eq. 2 gives 3 everything and 2
// nothing; 3 forwards the whole block to 2.
TEST(PaperFigures, Fig3IntraNodeLinksSplit) {
  const CommGraph g = figure_comm(1, {2, 3});
  const auto plans = build_plans(g, build_leader_plan);
  const std::set<Moved> want = {{1, 3, 1, 0, 1024}, {3, 2, 1, 0, 1024}};
  EXPECT_EQ(moved(plans, kKiB), want);
  EXPECT_EQ(link_of(plans, 1, 3), LinkClass::kLinked);
  EXPECT_EQ(link_of(plans, 3, 2), LinkClass::kSamePackage);
  EXPECT_TRUE(plans[1].sends.size() == 1) << "no empty fragment is planned for a zero weight";
  expect_checks_pass(g);
}

// Fig. 4: G_9 to the two GCDs of one package on another node: one network
// message to the leader 0, which forwards it to its peer 1 (PEM).
TEST(PaperFigures, Fig4RemotePeersOneLeader) {
  const CommGraph g = figure_comm(9, {0, 1});
  const auto plans = build_plans(g, build_leader_plan);
  const std::set<Moved> want = {{9, 0, 9, 0, 1024}, {0, 1, 9, 0, 1024}};
  EXPECT_EQ(moved(plans, kKiB), want);
  EXPECT_EQ(link_of(plans, 9, 0), LinkClass::kNetwork);
  EXPECT_EQ(link_of(plans, 0, 1), LinkClass::kSamePackage);
  expect_checks_pass(g);
}

// Fig. 5: G_9 to 0, 1, 2, 3: halves to the leaders 0 and 2 (L_r), the leaders
// swap halves (RM), each forwards both halves to its peer (PEM).
TEST(PaperFigures, Fig5RemoteTwoLeadersWithPeers) {
  const CommGraph g = figure_comm(9, {0, 1, 2, 3});
  const auto plans = build_plans(g, build_leader_plan);
  const std::set<Moved> want = {
      {9, 0, 9, 0, 512}, {9, 2, 9, 512, 1024},  // L_r
      {0, 2, 9, 0, 512}, {2, 0, 9, 512, 1024},  // RM
      {0, 1, 9, 0, 512}, {0, 1, 9, 512, 1024},  // PEM
      {2, 3, 9, 0, 512}, {2, 3, 9, 512, 1024},
  };
  EXPECT_EQ(moved(plans, kKiB), want);
  // The pair 0->1 carries two fragments, numbered by share.
  const Plan& leader0 = plans[0];
  std::vector<int> tags;
  for (const Send& s : leader0.sends) {
    if (s.peer == 1) tags.push_back(s.share.lo == 0 ? s.tag : s.tag + 10);
  }
  std::sort(tags.begin(), tags.end());
  EXPECT_EQ(tags, (std::vector<int>{0, 11}));
  expect_checks_pass(g);
}

// Fig. 6: G_9 to 0, 2, 4, 6 (no peers): quarters to four leaders, which
// exchange them; no PEM step.
TEST(PaperFigures, Fig6RemoteFourLeadersNoPeers) {
  const CommGraph g = figure_comm(9, {0, 2, 4, 6});
  const auto plans = build_plans(g, build_leader_plan);
  std::set<Moved> want;
  const int leaders[] = {0, 2, 4, 6};
  for (std::uint64_t j = 0; j < 4; ++j) {
    want.insert({9, leaders[j], 9, 256 * j, 256 * (j + 1)});
    for (const int other : leaders) {
      if (other != leaders[j]) want.insert({leaders[j], other, 9, 256 * j, 256 * (j + 1)});
    }
  }
  EXPECT_EQ(moved(plans, kKiB), want);
  EXPECT_EQ(want.size(), 16u);
  expect_checks_pass(g);
}

// Fig. 6 where one rank fills the node's network (remote_leaders = 1): the
// whole block to one leader, which forwards it to the other three. The
// leader takes turns by source: 9 mod 4 = 1 picks the second, 2; source 8
// picks the first, 0.
TEST(PaperFigures, Fig6WithOneRemoteLeader) {
  CommGraph g = figure_comm(9, {0, 2, 4, 6});
  g.remote_leaders = 1;
  const auto plans = build_plans(g, build_leader_plan);
  const std::set<Moved> want = {{9, 2, 9, 0, 1024}, {2, 4, 9, 0, 1024}, {2, 6, 9, 0, 1024}, {2, 0, 9, 0, 1024}};
  EXPECT_EQ(moved(plans, kKiB), want);
  expect_checks_pass(g);
  CommGraph from8 = figure_comm(8, {0, 2, 4, 6});
  from8.remote_leaders = 1;
  const std::set<Moved> want8 = {{8, 0, 8, 0, 1024}, {0, 2, 8, 0, 1024}, {0, 4, 8, 0, 1024}, {0, 6, 8, 0, 1024}};
  EXPECT_EQ(moved(build_plans(from8, build_leader_plan), kKiB), want8);
}

// Fig. 6's destinations with remote_leaders = 2: the package groups merged
// in order, {0, 2} and {4, 6}, each led by its member 9 mod 2 = 1 (2 and 6).
TEST(PaperFigures, RemoteLeadersMergeConsecutivePackages) {
  CommGraph g = figure_comm(9, {0, 2, 4, 6});
  g.remote_leaders = 2;
  auto plans = build_plans(g, build_leader_plan);
  const std::set<Moved> four = {
      {9, 2, 9, 0, 512}, {9, 6, 9, 512, 1024},  // L_r
      {2, 6, 9, 0, 512}, {6, 2, 9, 512, 1024},  // RM
      {2, 0, 9, 0, 512}, {2, 0, 9, 512, 1024},  // PEM
      {6, 4, 9, 0, 512}, {6, 4, 9, 512, 1024},
  };
  EXPECT_EQ(moved(plans, kKiB), four);
  expect_checks_pass(g);
  // Two groups already: a limit of 2 (or more) changes nothing.
  CommGraph two = figure_comm(9, {0, 1, 2, 3});
  const auto unlimited = build_plans(two, build_leader_plan);
  two.remote_leaders = 2;
  EXPECT_EQ(build_plans(two, build_leader_plan), unlimited);
}

}  // namespace
}  // namespace nbrcoll::algos::testing
