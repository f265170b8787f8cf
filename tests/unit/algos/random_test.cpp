// Randomized whole-communicator checks of both planners: random graphs,
// topologies, node sizes, device sharing and block sizes, each run through
// the simulator (properties 1-3). Fixed seed by default; NBRCOLL_TEST_SEED
// overrides it, NBRCOLL_TEST_CASES the number of cases (default 10000).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "algos/mixed_plan.h"
#include "algos/testing/graphs.h"
#include "algos/testing/random_cases.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

constexpr std::uint64_t kDefaultSeed = 20240601;

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 0);
}

// The cases are split into kShards tests so that ctest -j runs them side by
// side; case i is the same whatever the sharding.
constexpr int kShards = 4;

class RandomCommunicators : public ::testing::TestWithParam<int> {};

TEST_P(RandomCommunicators, LeaderAndLinearPlansAreCorrectAndLeaderNeverWorse) {
  const std::uint64_t seed = env_number("NBRCOLL_TEST_SEED", kDefaultSeed);
  const auto cases = static_cast<int>(env_number("NBRCOLL_TEST_CASES", 10000));
  const int shard = GetParam();
  const int first = cases * shard / kShards;
  const int last = cases * (shard + 1) / kShards;
  std::printf("random planner cases %d..%d of %d: seed %llu (set NBRCOLL_TEST_SEED to change)\n", first, last - 1,
              cases, static_cast<unsigned long long>(seed));
  const auto start = std::chrono::steady_clock::now();
  int checked = 0;
  std::uint64_t fragments = 0;
  std::uint64_t leader_network = 0;
  std::uint64_t linear_network = 0;
  for (int i = first; i < last; ++i) {
    Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i));
    const RandomCase c = random_case(rng);
    const auto t0 = std::chrono::steady_clock::now();
    const CaseOutcome out = check_case(c.graph, c.blocks);
    if (std::getenv("NBRCOLL_TEST_SLOW") != nullptr) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (ms > 2) std::printf("slow case %d: %.1f ms: %s\n", i, ms, c.what.c_str());
    }
    ASSERT_TRUE(out.errors.empty()) << "case " << i << " of seed " << seed << ": " << c.what << "\n"
                                    << joined(out.errors);
    ++checked;
    fragments += out.leader.fragments + out.linear.fragments;
    for (const auto b : out.leader.network_bytes) leader_network += b;
    for (const auto b : out.linear.network_bytes) linear_network += b;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("checked %d random cases (%llu matched fragments; network bytes leader %llu vs linear %llu) in %.1f s\n",
              checked, static_cast<unsigned long long>(fragments), static_cast<unsigned long long>(leader_network),
              static_cast<unsigned long long>(linear_network), seconds);
  EXPECT_EQ(checked, last - first);
}

INSTANTIATE_TEST_SUITE_P(Shards, RandomCommunicators, ::testing::Range(0, kShards));

// Per-call mixing: each origin's block goes by linear, leader or
// aggregated, chosen per origin (as the executor does from B(origin)); every
// rank's selection of its mixed plan must still deliver every byte, never
// deadlock, and never move more than linear. The choice is a function of the
// origin alone, the same on every rank, like a rule on B(origin).
TEST(MixedPlans, EveryPerOriginChoiceIsCorrect) {
  const std::uint64_t seed = env_number("NBRCOLL_TEST_SEED", kDefaultSeed) + 7;
  const auto cases = static_cast<int>(env_number("NBRCOLL_TEST_CASES", 10000)) / 5;
  std::uint64_t mixed_calls = 0;
  for (int i = 0; i < cases; ++i) {
    Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i));
    const RandomCase c = random_case(rng);
    if (!validate_graph(c.graph).empty()) continue;
    const int p = c.graph.size();
    const std::vector<Plan> leader = build_plans(c.graph, build_leader_plan);
    const std::vector<Plan> linear = build_plans(c.graph, build_linear_plan);
    const std::vector<Plan> aggregated = build_plans(c.graph, build_aggregated_plan);
    std::vector<MixedPlan> mixed;
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      const std::vector<std::pair<Variant, const Plan*>> plans{
          {Variant::kLinear, &linear[ur]}, {Variant::kLeader, &leader[ur]}, {Variant::kAggregated, &aggregated[ur]}};
      mixed.push_back(mix_plans(plans, c.graph.in[ur], c.graph.out[ur].size(), false));
      // Graph creation's tag stride comes from the plans, before any mixing.
      ASSERT_EQ(largest_tag(plans), largest_tag(mixed.back()));
      ASSERT_EQ(mixed.back().plan.recvs.size(),
                linear[ur].recvs.size() + leader[ur].recvs.size() + aggregated[ur].recvs.size());
    }
    // 0: all linear, 1: all leader, 2: all aggregated, 3: random per origin, 4: by block size.
    for (int mode = 0; mode < 5; ++mode) {
      const std::vector<std::uint64_t>& blocks = c.blocks[static_cast<std::size_t>(mode % 2)];
      std::vector<Variant> variant_of(static_cast<std::size_t>(p));
      for (int o = 0; o < p; ++o) {
        const auto uo = static_cast<std::size_t>(o);
        variant_of[uo] = mode < 3            ? static_cast<Variant>(mode)
                         : mode == 3         ? static_cast<Variant>(pick(rng, 0, 2))
                         : blocks[uo] < 300  ? Variant::kAggregated
                         : blocks[uo] < 2000 ? Variant::kLinear
                                             : Variant::kLeader;
      }
      std::vector<std::vector<Variant>> choices;
      for (int r = 0; r < p; ++r) {
        const MixedPlan& m = mixed[static_cast<std::size_t>(r)];
        const std::vector<int>& in = c.graph.in[static_cast<std::size_t>(r)];
        std::vector<Variant>& choice = choices.emplace_back();
        for (const Unit& u : m.units) {
          const int origin = u.send_block >= 0 ? r : in[static_cast<std::size_t>(u.slot)];
          choice.push_back(variant_of[static_cast<std::size_t>(origin)]);
        }
      }
      const SimResult got = simulate_mixed(c.graph, mixed, choices, blocks);
      ASSERT_TRUE(got.ok()) << "case " << i << " mode " << mode << ": " << c.what << "\n" << joined(got.errors);
      const SimResult lin = simulate(c.graph, linear, blocks);
      const auto worse = compare_mixed_with_linear(got, lin, simulate(c.graph, aggregated, blocks));
      ASSERT_TRUE(worse.empty()) << "case " << i << " mode " << mode << ": " << c.what << "\n" << joined(worse);
      if (mode < 2) {
        // All linear or all leader: that planner's fragments, and the
        // aggregated plan's bundles with every piece absent.
        const SimResult same = simulate(c.graph, mode == 0 ? linear : leader, blocks);
        EXPECT_EQ(got.network_bytes, same.network_bytes) << "case " << i;
      } else if (mode == 2) {
        const SimResult same = simulate(c.graph, aggregated, blocks);
        EXPECT_EQ(got.fragments, same.fragments) << "case " << i;
        EXPECT_EQ(got.network_bytes, same.network_bytes) << "case " << i;
        EXPECT_EQ(got.network_messages, same.network_messages) << "case " << i;
      }
      ++mixed_calls;
    }
  }
  EXPECT_GT(mixed_calls, 0u);
}

// Graph creation builds both aggregated plans from one pass over the node's
// lists; they must be the plans each planner builds on its own.
TEST(AggregatedPlans, BothFromOnePassEqualTheSeparateBuilds) {
  const std::uint64_t seed = env_number("NBRCOLL_TEST_SEED", kDefaultSeed) + 11;
  const auto cases = static_cast<int>(env_number("NBRCOLL_TEST_CASES", 10000)) / 20;
  int bundled = 0;
  for (int i = 0; i < cases; ++i) {
    Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i));
    const RandomCase c = random_case(rng);
    if (!validate_graph(c.graph).empty()) continue;
    for (int r = 0; r < c.graph.size(); ++r) {
      const PlanInput input = make_plan_input(c.graph, r);
      const auto [gather, alltoall] = build_aggregated_plans(input);
      ASSERT_EQ(gather, build_aggregated_plan(input)) << "case " << i << " rank " << r << ": " << c.what;
      ASSERT_EQ(alltoall, build_aggregated_alltoall_plan(input)) << "case " << i << " rank " << r << ": " << c.what;
      if (!gather.bundle_sends.empty()) ++bundled;
    }
  }
  EXPECT_GT(bundled, 0);  // the cases reach the bundles, not only the linear part
}

// Alltoall(v): per-edge block sizes, linear and aggregated plans, and calls
// that mix them per edge (both ends of an edge choose from the edge alone).
TEST(AlltoallPlans, LinearAndAggregatedAreCorrectAndMixPerEdge) {
  const std::uint64_t seed = env_number("NBRCOLL_TEST_SEED", kDefaultSeed) + 11;
  const auto cases = static_cast<int>(env_number("NBRCOLL_TEST_CASES", 10000)) / 5;
  std::uint64_t checked = 0;
  std::uint64_t linear_messages = 0;
  std::uint64_t aggregated_messages = 0;
  for (int i = 0; i < cases; ++i) {
    Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i));
    const RandomCase c = random_case(rng);
    if (!validate_graph(c.graph).empty()) continue;
    std::uint64_t edges = 0;
    for (const auto& out : c.graph.out) edges += out.size();
    if (edges > 3000) continue;  // keep the per-edge byte buffers small
    const auto sizes = random_edge_bytes(rng, c.graph);
    const CaseOutcome out = check_alltoall_case(c.graph, sizes);
    ASSERT_TRUE(out.errors.empty()) << "case " << i << ": " << c.what << "\n" << joined(out.errors);
    for (const auto m : out.linear.network_messages) linear_messages += m;
    for (const auto m : out.aggregated.network_messages) aggregated_messages += m;
    // Mixed per edge: the choice is a hash of the block {s, d, k}, which the
    // sender derives from its out-edge and the receiver from its slot.
    const int p = c.graph.size();
    std::vector<MixedPlan> mixed_plans;
    std::vector<std::vector<Variant>> choices;
    const auto lin = build_plans(c.graph, build_linear_alltoall_plan);
    const auto agg = build_plans(c.graph, build_aggregated_alltoall_plan);
    const std::uint64_t salt = rng();
    const auto pick_variant = [salt](int s, int d, int k) {
      const std::uint64_t h = (static_cast<std::uint64_t>(s) * 1000003 + static_cast<std::uint64_t>(d)) * 131 +
                              static_cast<std::uint64_t>(k) + salt;
      return (h * 0x9E3779B97F4A7C15ULL) >> 63 ? Variant::kAggregated : Variant::kLinear;
    };
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      const auto& in = c.graph.in[ur];
      const auto& outl = c.graph.out[ur];
      const std::vector<std::pair<Variant, const Plan*>> plans{{Variant::kLinear, &lin[ur]},
                                                               {Variant::kAggregated, &agg[ur]}};
      const MixedPlan& m = mixed_plans.emplace_back(mix_plans(plans, in, outl.size(), true));
      ASSERT_EQ(largest_tag(plans), largest_tag(m));
      std::vector<Variant>& choice = choices.emplace_back();
      for (const Unit& u : m.units) {
        if (u.send_block >= 0) {
          const int d = outl[static_cast<std::size_t>(u.send_block)];
          int k = 0;
          for (int j = 0; j < u.send_block; ++j) k += outl[static_cast<std::size_t>(j)] == d ? 1 : 0;
          choice.push_back(pick_variant(r, d, k));
        } else {
          const int s = in[static_cast<std::size_t>(u.slot)];
          int k = 0;
          for (int j = 0; j < u.slot; ++j) k += in[static_cast<std::size_t>(j)] == s ? 1 : 0;
          choice.push_back(pick_variant(s, r, k));
        }
      }
    }
    const SimResult mixed = simulate_mixed_alltoall(c.graph, mixed_plans, choices, sizes);
    ASSERT_TRUE(mixed.ok()) << "case " << i << " (mixed): " << c.what << "\n" << joined(mixed.errors);
    const auto worse = compare_mixed_with_linear(mixed, out.linear, out.aggregated);
    ASSERT_TRUE(worse.empty()) << "case " << i << " (mixed): " << c.what << "\n" << joined(worse);
    ++checked;
  }
  std::printf("checked %llu alltoall cases; network messages linear %llu, aggregated %llu\n",
              static_cast<unsigned long long>(checked), static_cast<unsigned long long>(linear_messages),
              static_cast<unsigned long long>(aggregated_messages));
  EXPECT_GT(checked, 0u);
}

TEST(MixedPlans, TagsOfTheVariantsNeverMeet) {
  Plan linear;
  linear.rank = 0;
  linear.recvs.push_back({1, 1, {}, 0, 0, LinkClass::kNetwork});
  linear.sends.push_back({1, 0, {}, -1, -1, 0, LinkClass::kNetwork});
  Plan leader = linear;
  leader.sends.push_back({2, 1, {0, 1, 2}, 0, 0, 1, LinkClass::kLinked});
  const MixedPlan m = mix_plans({{Variant::kLinear, &linear}, {Variant::kLeader, &leader}}, {1}, 1, false);
  ASSERT_EQ(m.plan.recvs.size(), 2u);
  EXPECT_EQ(m.plan.recvs[0].tag, 0);
  EXPECT_EQ(m.plan.recvs[1].tag, 1);
  EXPECT_EQ(m.plan.sends[2].tag, 4);         // 3 * 1 + leader
  EXPECT_EQ(m.plan.sends[2].after_recv, 1);  // remapped to the leader copy of the receive
  EXPECT_EQ(largest_tag(m), 4);
  EXPECT_EQ(largest_tag({{Variant::kLinear, &linear}, {Variant::kLeader, &leader}}), 4);  // without mixing
  // Units in order of first use: origin 1 (home slot 0), then this rank's own block.
  ASSERT_EQ(m.units.size(), 2u);
  EXPECT_EQ(m.units[0], (Unit{-1, 0}));
  EXPECT_EQ(m.units[1], (Unit{0, -1}));
  const Plan only_leader_for_1 = select(m, {Variant::kLeader, Variant::kLinear});
  ASSERT_EQ(only_leader_for_1.recvs.size(), 1u);
  EXPECT_EQ(only_leader_for_1.recvs[0].tag, 1);
  ASSERT_EQ(only_leader_for_1.sends.size(), 2u);  // own block by linear, the forward of 1's block by leader
  EXPECT_EQ(only_leader_for_1.sends[1].after_recv, 0);
}

}  // namespace
}  // namespace nbrcoll::algos::testing
