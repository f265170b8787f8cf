// The aggregated (node-aware 3-step) plan on small communicators whose every
// bundle can be named by hand, and the simulator's complaints about broken
// bundles.
#include <gtest/gtest.h>

#include <algorithm>

#include "algos/mixed_plan.h"
#include "algos/testing/graphs.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

std::vector<std::vector<std::uint64_t>> edge_sizes(const CommGraph& g, std::uint64_t bytes) {
  std::vector<std::vector<std::uint64_t>> sizes;
  for (const auto& out : g.out) sizes.emplace_back(out.size(), bytes);
  return sizes;
}

std::size_t network_bundles(const Plan& p, const CommGraph& g) {
  return static_cast<std::size_t>(std::count_if(p.bundle_sends.begin(), p.bundle_sends.end(), [&](const BundleSend& b) {
    return g.places[static_cast<std::size_t>(b.peer)].node != g.places[static_cast<std::size_t>(p.rank)].node;
  }));
}

TEST(AggregatedPlan, AlltoallOnTwoNodesSendsOneNetworkBundlePerDirection) {
  const CommGraph g = complete_2x2();
  const auto plans = build_plans(g, build_aggregated_alltoall_plan);
  const SimResult r = simulate_alltoall(g, plans, edge_sizes(g, 1000));
  ASSERT_TRUE(r.ok()) << joined(r.errors);
  // Linear crosses with 4 messages per direction (every s on one node to
  // every d on the other), aggregated with one bundle of 4 pieces.
  EXPECT_EQ(r.network_messages, (std::vector<std::uint64_t>{0, 1, 1, 0}));
  std::size_t total = 0;
  for (const Plan& p : plans) {
    total += network_bundles(p, g);
    for (const BundleSend& b : p.bundle_sends) {
      if (g.places[static_cast<std::size_t>(b.peer)].node != g.places[static_cast<std::size_t>(p.rank)].node) {
        EXPECT_EQ(b.pieces.size(), 4u);
      }
    }
    // The intra-node edge stays a plain message each way.
    EXPECT_EQ(p.sends.size(), 1u);
    EXPECT_EQ(p.recvs.size(), 1u);
  }
  EXPECT_EQ(total, 2u);
  // Payload crossing nodes is exactly linear's; each bundle adds its header.
  const SimResult lin = simulate_alltoall(g, build_plans(g, build_linear_alltoall_plan), edge_sizes(g, 1000));
  EXPECT_EQ(r.network_bytes, lin.network_bytes);
  EXPECT_EQ(lin.network_messages, (std::vector<std::uint64_t>{0, 4, 4, 0}));
}

TEST(AggregatedPlan, AllgatherCarriesEachBlockOncePerRemoteNode) {
  const CommGraph g = complete_2x2();
  const auto plans = build_plans(g, build_aggregated_plan);
  const SimResult r = simulate(g, plans, same_blocks(g, 1000));
  ASSERT_TRUE(r.ok()) << joined(r.errors);
  for (const Plan& p : plans) {
    for (const BundleSend& b : p.bundle_sends) {
      const bool network =
          g.places[static_cast<std::size_t>(b.peer)].node != g.places[static_cast<std::size_t>(p.rank)].node;
      if (network) {
        EXPECT_EQ(b.pieces.size(), 2u);  // the two sources of the node, once each
      }
    }
  }
  // Each block crosses once (the leader plan's deduplication): 2 of 1000 B per direction.
  for (int s = 0; s < 4; ++s) EXPECT_EQ(r.network_bytes[static_cast<std::size_t>(s)], 1000u);
  EXPECT_EQ(r.network_messages, (std::vector<std::uint64_t>{0, 1, 1, 0}));
}

TEST(AggregatedPlan, ASingleEdgeBetweenNodesGoesDirect) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 2);
  set_edges(g, {{0, 2}, {0, 1}, {3, 1}, {2, 1}});  // 0 -> node 1: one edge; node 1 -> 1: two edges
  const auto plans = build_plans(g, build_aggregated_alltoall_plan);
  ASSERT_TRUE(plans[0].bundle_sends.empty());
  ASSERT_EQ(plans[0].sends.size(), 2u);  // 0 -> 2 direct, 0 -> 1 intra-node
  const SimResult r = simulate_alltoall(g, plans, edge_sizes(g, 77));
  ASSERT_TRUE(r.ok()) << joined(r.errors);
  EXPECT_EQ(r.network_messages, (std::vector<std::uint64_t>{0, 1, 1, 0}));
}

TEST(AggregatedPlan, DuplicateEdgesAreCopiedOnArrivalForAllgatherAndSeparateBlocksForAlltoall) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 2);
  set_edges(g, {{0, 2}, {0, 2}, {1, 2}, {0, 3}});
  const SimResult ag = simulate(g, build_plans(g, build_aggregated_plan), same_blocks(g, 300));
  ASSERT_TRUE(ag.ok()) << joined(ag.errors);
  const auto plans = build_plans(g, build_aggregated_plan);
  EXPECT_EQ(plans[2].copies.size(), 1u);  // the second slot of 0 copies the first
  const SimResult aa = simulate_alltoall(g, build_plans(g, build_aggregated_alltoall_plan), edge_sizes(g, 300));
  ASSERT_TRUE(aa.ok()) << joined(aa.errors);
}

TEST(AggregatedPlan, LargeBundlesTakeASecondMessage) {
  const CommGraph g = complete_2x2();
  const std::uint64_t big = kBundlePrefixPerPiece * 3;  // 4 pieces of 3 prefix allowances
  const SimResult r = simulate_alltoall(g, build_plans(g, build_aggregated_alltoall_plan), edge_sizes(g, big));
  ASSERT_TRUE(r.ok()) << joined(r.errors);
  EXPECT_EQ(r.network_messages, (std::vector<std::uint64_t>{0, 2, 2, 0}));
  EXPECT_EQ(bundle_messages(4, 4 * big), 2);
  EXPECT_EQ(bundle_messages(4, 4 * kBundlePrefixPerPiece), 1);
}

// ---- the simulator on broken bundles -----------------------------------------

struct Complete {
  CommGraph graph = complete_2x2();
  std::vector<Plan> plans = build_plans(graph, build_aggregated_alltoall_plan);
  SimResult run() const { return simulate_alltoall(graph, plans, edge_sizes(graph, 500)); }
  Plan& with_bundle_sends() {
    return *std::find_if(plans.begin(), plans.end(), [](const Plan& p) { return !p.bundle_sends.empty(); });
  }
};

TEST(AggregatedPlan, SimulatorAcceptsTheCorrectPlan) {
  const Complete c;
  EXPECT_TRUE(c.run().ok()) << joined(c.run().errors);
}

TEST(AggregatedPlan, SimulatorCatchesPiecesThatDisagree) {
  Complete c;
  BundleSend& b = c.with_bundle_sends().bundle_sends.front();
  std::swap(b.pieces.front(), b.pieces.back());
  std::swap(b.from.front(), b.from.back());
  EXPECT_TRUE(mentions(c.run(), "disagree on the pieces") || mentions(c.run(), "own piece")) << joined(c.run().errors);
}

TEST(AggregatedPlan, SimulatorCatchesBundlesThatWaitForEachOther) {
  // Two ranks on two nodes; each forwards rank 1's block back only after it
  // received it from the other: a cycle, so neither bundle ever goes.
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 1);
  set_edges(g, {{0, 1}, {1, 0}});
  const BlockId b10{1, 0, 0};
  std::vector<Plan> plans(2);
  for (int r = 0; r < 2; ++r) {
    Plan& p = plans[static_cast<std::size_t>(r)];
    p.rank = r;
    p.bundle_recvs.push_back({1 - r, 0, LinkClass::kNetwork, {b10}, {r == 0 ? 0 : -1}});
    p.bundle_sends.push_back({1 - r, 0, LinkClass::kNetwork, {b10}, {PieceSource{0, 0, -1}}});
  }
  plans[0].sends.push_back({1, 0, {}, -1, -1, 1, LinkClass::kNetwork, 0});
  plans[1].recvs.push_back({0, 0, {}, 0, 1, LinkClass::kNetwork});
  const SimResult r = simulate_alltoall(g, plans, edge_sizes(g, 64));
  EXPECT_TRUE(mentions(r, "deadlock")) << joined(r.errors);
}

TEST(AggregatedPlan, SimulatorCatchesAnExpectedPieceThatComesAbsent) {
  Complete c;
  // A sender moves its own block by another variant, the receiver still
  // expects it in the bundle.
  Plan& p = c.with_bundle_sends();
  for (BundleSend& b : p.bundle_sends) {
    for (PieceSource& f : b.from) {
      if (f.bundle == -1) f.bundle = kPieceAbsent;
    }
  }
  EXPECT_TRUE(mentions(c.run(), "came absent")) << joined(c.run().errors);
}

TEST(AggregatedPlan, SimulatorCatchesAPieceForASlotThatChoseAnotherVariant) {
  Complete c;
  for (Plan& p : c.plans) {
    for (BundleRecv& b : p.bundle_recvs) {
      for (int& slot : b.slot) {
        if (slot >= 0) slot = kPieceAbsent;
      }
    }
  }
  EXPECT_TRUE(mentions(c.run(), "moves by another variant")) << joined(c.run().errors);
}

TEST(AggregatedPlan, SimulatorCatchesAPieceIntoTheWrongSlot) {
  Complete c;
  for (Plan& p : c.plans) {
    for (BundleRecv& b : p.bundle_recvs) {
      if (b.slot.size() >= 2 && b.slot[0] >= 0 && b.slot[1] >= 0) std::swap(b.slot[0], b.slot[1]);
    }
  }
  EXPECT_TRUE(mentions(c.run(), "slot of another block")) << joined(c.run().errors);
}

TEST(AggregatedPlan, MixedCallWithEveryPieceAbsentStillDeliversByLinear) {
  const CommGraph g = complete_2x2();
  const auto lin = build_plans(g, build_linear_alltoall_plan);
  const auto agg = build_plans(g, build_aggregated_alltoall_plan);
  std::vector<MixedPlan> mixed;
  std::vector<std::vector<Variant>> choices;
  for (int r = 0; r < g.size(); ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const MixedPlan& m = mixed.emplace_back(
        mix_plans({{Variant::kLinear, &lin[ur]}, {Variant::kAggregated, &agg[ur]}}, g.in[ur], g.out[ur].size(), true));
    choices.emplace_back(m.units.size(), Variant::kLinear);
  }
  const SimResult r = simulate_mixed_alltoall(g, mixed, choices, edge_sizes(g, 900));
  ASSERT_TRUE(r.ok()) << joined(r.errors);
  // Linear's 4 messages per direction plus the empty network bundle.
  EXPECT_EQ(r.network_messages, (std::vector<std::uint64_t>{0, 5, 5, 0}));
}

}  // namespace
}  // namespace nbrcoll::algos::testing
