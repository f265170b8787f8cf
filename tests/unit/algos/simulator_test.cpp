// The simulator must catch broken plans: each test breaks a correct plan in
// one way and expects the matching complaint.
#include <gtest/gtest.h>

#include "algos/tags.h"
#include "algos/testing/graphs.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

constexpr std::uint64_t kB = 1000;

struct Fig5 {
  CommGraph graph = [] {
    CommGraph g = make_uniform_comm(Model::kMi250, 2, 8);
    set_edges(g, {{9, 0}, {9, 1}, {9, 2}, {9, 3}, {9, 3}});
    return g;
  }();
  std::vector<Plan> plans = build_plans(graph, build_leader_plan);
  SimResult run() const { return simulate(graph, plans, same_blocks(graph, kB)); }
};

void assign_canonical_tags_for_test(std::vector<Plan>& plans) {
  for (Plan& p : plans) assign_canonical_tags(p);
}

TEST(Simulator, AcceptsTheCorrectPlanAndCountsRounds) {
  const Fig5 f;
  const SimResult r = f.run();
  EXPECT_TRUE(r.ok()) << joined(r.errors);
  EXPECT_EQ(r.rounds, 3u);  // L_r, RM, PEM
  EXPECT_EQ(r.network_bytes[9], kB);
  EXPECT_EQ(r.off_device_bytes[9], kB);
}

TEST(Simulator, CatchesAMissingRecv) {
  Fig5 f;
  f.plans[1].recvs.pop_back();
  EXPECT_TRUE(mentions(f.run(), "send without a matching recv"));
}

TEST(Simulator, CatchesDisagreeingShares) {
  Fig5 f;
  for (Send& s : f.plans[9].sends) s.share = {0, 1, 1};
  EXPECT_TRUE(mentions(f.run(), "disagree"));
}

TEST(Simulator, CatchesATagUsedTwice) {
  Fig5 f;
  for (Send& s : f.plans[0].sends) {
    if (s.peer == 1) s.tag = 0;
  }
  for (Recv& r : f.plans[1].recvs) r.tag = 0;
  EXPECT_TRUE(mentions(f.run(), "tag used twice"));
}

TEST(Simulator, CatchesAForwardWhoseShareDiffersFromItsRecv) {
  Fig5 f;
  for (Send& s : f.plans[0].sends) {
    if (s.peer == 1) s.after_recv = 1 - s.after_recv;  // swap the halves' dependencies
  }
  EXPECT_TRUE(mentions(f.run(), "share differs from its after_recv"));
}

TEST(Simulator, CatchesADeadlock) {
  // Origin 2 reaches 0 and 1 only through each other: nobody can start.
  CommGraph g = make_uniform_comm(Model::kFlat, 1, 3);
  set_edges(g, {{2, 0}, {2, 1}});
  std::vector<Plan> plans(3);
  for (int r = 0; r < 3; ++r) plans[static_cast<std::size_t>(r)].rank = r;
  for (int r = 0; r < 2; ++r) {
    plans[static_cast<std::size_t>(r)].recvs.push_back({1 - r, 2, {0, 1, 1}, 0, 0, LinkClass::kMultiHop});
    plans[static_cast<std::size_t>(r)].sends.push_back({1 - r, 2, {0, 1, 1}, 0, 0, 0, LinkClass::kMultiHop});
  }
  EXPECT_TRUE(mentions(simulate(g, plans, same_blocks(g, 64)), "deadlock"));
}

TEST(Simulator, CatchesWritesIntoProcNullSlotsAndMissingCopies) {
  Fig5 f;
  f.graph.in[1].push_back(kNoRank);
  f.plans[1].recvs.front().slot = 1;  // the kNoRank slot
  EXPECT_TRUE(mentions(f.run(), "slot of another origin"));
  Fig5 g;
  g.plans[3].copies.clear();  // the duplicate slot of 9 at rank 3
  EXPECT_TRUE(mentions(g.run(), "must be filled"));
}

TEST(Simulator, CatchesBytesWrittenTwiceOrNever) {
  // Every first half becomes a second half: consistent on both ends of every
  // fragment, but the first half of the block never arrives anywhere.
  Fig5 f;
  const Share first{0, 1, 2};
  const Share second{1, 2, 2};
  for (Plan& p : f.plans) {
    for (Send& s : p.sends) {
      if (s.share == first) s.share = second;
    }
    for (Recv& r : p.recvs) {
      if (r.share == first) r.share = second;
    }
  }
  assign_canonical_tags_for_test(f.plans);
  const SimResult r = f.run();
  EXPECT_TRUE(mentions(r, "written twice") || mentions(r, "never written")) << joined(r.errors);
}

TEST(Simulator, CompareWithLinearFlagsMoreNetworkBytes) {
  SimResult a;
  SimResult b;
  a.network_bytes = {10, 0};
  b.network_bytes = {5, 0};
  a.off_device_bytes = b.off_device_bytes = {0, 0};
  EXPECT_FALSE(compare_with_linear(a, b).empty());
  EXPECT_TRUE(compare_with_linear(b, b).empty());
}

TEST(Simulator, ValidateGraphFindsInconsistentLists) {
  CommGraph g = make_uniform_comm(Model::kFlat, 1, 3);
  set_edges(g, {{0, 1}});
  EXPECT_TRUE(validate_graph(g).empty());
  g.out[0].push_back(2);
  EXPECT_FALSE(validate_graph(g).empty());
}

}  // namespace
}  // namespace nbrcoll::algos::testing
