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

#include "algos/testing/graphs.h"
#include "algos/mixed_plan.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

constexpr std::uint64_t kDefaultSeed = 20240601;

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 0);
}

int pick(Rng& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}
bool chance(Rng& rng, double p) {
  return std::bernoulli_distribution(p)(rng);
}

struct RandomCase {
  CommGraph graph;
  std::vector<std::vector<std::uint64_t>> blocks;
  std::string what;
};

std::vector<NodeSpec> random_nodes(Rng& rng, std::string& what) {
  const double r = std::uniform_real_distribution<double>(0, 1)(rng);
  const int nodes = r < 0.85 ? pick(rng, 1, 6) : r < 0.95 ? pick(rng, 7, 16) : pick(rng, 17, 64);
  const int max_ppn = nodes > 16 ? 2 : nodes > 6 ? 4 : 8;
  const bool unequal = chance(rng, 0.4);
  const int ppn = pick(rng, 1, max_ppn);
  const Model model = kAllModels[pick(rng, 0, 3)];
  const bool mixed_models = chance(rng, 0.1);
  const int device_mode = pick(rng, 0, 19);  // 0-9 in order, 10-13 random, 14-16 permuted, 17-18 few, 19 unknown
  std::vector<NodeSpec> specs(static_cast<std::size_t>(nodes));
  for (NodeSpec& s : specs) {
    s.model = mixed_models ? kAllModels[pick(rng, 0, 3)] : model;
    const int n = unequal ? pick(rng, 1, max_ppn) : ppn;
    std::vector<int> perm = {0, 1, 2, 3, 4, 5, 6, 7};
    std::shuffle(perm.begin(), perm.end(), rng);
    for (int i = 0; i < n; ++i) {
      int device = i % 8;
      if (device_mode >= 10 && device_mode <= 13) device = pick(rng, 0, 7);
      if (device_mode >= 14 && device_mode <= 16) device = perm[static_cast<std::size_t>(i)];
      if (device_mode >= 17 && device_mode <= 18) device = pick(rng, 0, 1) * pick(rng, 1, 7);
      if (device_mode == 19) device = pick(rng, 0, 9);  // 8, 9: outside the matrices
      s.devices.push_back(device);
    }
  }
  what += std::to_string(nodes) + " nodes (" + node_model(model).name + (mixed_models ? "+mixed" : "") +
          (unequal ? ", unequal" : "") + ", devices mode " + std::to_string(device_mode) + ")";
  return specs;
}

std::vector<Edge> random_edges(Rng& rng, int p, std::string& what) {
  std::vector<Edge> edges;
  const int kind = pick(rng, 0, 19);
  if (kind < 8) {
    const double densities[] = {0.05, 0.1, 0.2, 0.5, 1.0};
    double d = chance(rng, 0.5) ? densities[pick(rng, 0, 4)] : std::uniform_real_distribution<double>(0.05, 1.0)(rng);
    if (p > 32 && chance(rng, 0.8)) d = std::min(d, 1000.0 / (p * p));  // keep most big cases sparse
    edges = erdos_renyi_edges(p, d, rng);
    what += ", ER " + std::to_string(d);
  } else if (kind < 12) {
    const int dims = pick(rng, 1, 3);
    const int radius = dims == 3 && p > 16 ? 1 : pick(rng, 1, 2);  // at most 26 neighbours on big grids
    edges = moore_edges(p, dims, radius);
    what += ", Moore d" + std::to_string(dims) + " r" + std::to_string(radius);
  } else if (kind < 14) {
    edges = star_edges(p, pick(rng, 0, p - 1));
    what += ", star";
  } else if (kind < 16) {
    edges = ring_edges(p, pick(rng, 1, 3));
    what += ", ring";
  } else if (kind < 17) {
    what += ", empty";
  } else {
    edges = erdos_renyi_edges(p, 0.1, rng);
    for (const Edge& e : ring_edges(p, 1)) edges.push_back(e);
    what += ", ER+ring";
  }
  if (!edges.empty() && chance(rng, 0.25)) {
    const int extra = pick(rng, 1, static_cast<int>(edges.size()) / 4 + 1);
    for (int i = 0; i < extra; ++i)
      edges.push_back(edges[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(edges.size()) - 1))]);
    what += ", duplicates";
  }
  if (chance(rng, 0.2)) {
    const int extra = pick(rng, 1, 3);
    for (int i = 0; i < extra; ++i) {
      const int r = pick(rng, 0, p - 1);
      edges.emplace_back(r, r);
    }
    what += ", self edges";
  }
  return edges;
}

std::vector<std::uint64_t> random_blocks(Rng& rng, int p, std::size_t edges) {
  std::vector<std::uint64_t> blocks(static_cast<std::size_t>(p));
  const int kind = pick(rng, 0, 9);
  std::uint64_t size = 0;
  switch (kind) {
    case 0:
      size = 0;
      break;
    case 1:
      size = 1;
      break;
    case 2:
      size = static_cast<std::uint64_t>(2 * pick(rng, 1, 150) + 1);
      break;
    case 3:
      size = 64;
      break;
    case 4:
      size = static_cast<std::uint64_t>(64 * pick(rng, 1, 40) + pick(rng, 0, 63));
      break;
    case 5:
      size = edges <= 24 && chance(rng, 0.15) ? 1000003 : 4097;
      break;
    default:
      break;  // allgatherv: per rank
  }
  for (auto& b : blocks) b = kind <= 5 ? size : chance(rng, 0.2) ? 0 : static_cast<std::uint64_t>(pick(rng, 1, 3000));
  if (edges > 400) {
    for (auto& b : blocks) b = std::min<std::uint64_t>(b, 257);
  }
  return blocks;
}

RandomCase random_case(Rng& rng) {
  RandomCase c;
  c.graph = make_comm(random_nodes(rng, c.what));
  const int p = c.graph.size();
  const std::vector<Edge> edges = random_edges(rng, p, c.what);
  const bool nulls = chance(rng, 0.25);
  set_edges(c.graph, edges, &rng, nulls ? 0.1 : 0.0);
  if (nulls) c.what += ", PROC_NULL";
  c.what += ", P=" + std::to_string(p) + ", E=" + std::to_string(edges.size());
  for (int i = 0; i < 2; ++i) c.blocks.push_back(random_blocks(rng, p, edges.size()));
  return c;
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
      mixed.push_back(mix_plans(
          {{Variant::kLinear, &linear[ur]}, {Variant::kLeader, &leader[ur]}, {Variant::kAggregated, &aggregated[ur]}},
          c.graph.in[ur], c.graph.out[ur].size(), false));
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
      std::vector<Plan> plans;
      for (int r = 0; r < p; ++r) {
        const MixedPlan& m = mixed[static_cast<std::size_t>(r)];
        const std::vector<int>& in = c.graph.in[static_cast<std::size_t>(r)];
        std::vector<Variant> choice;
        for (const Unit& u : m.units) {
          const int origin = u.send_block >= 0 ? r : in[static_cast<std::size_t>(u.slot)];
          choice.push_back(variant_of[static_cast<std::size_t>(origin)]);
        }
        plans.push_back(select(m, choice));
      }
      const SimResult got = simulate(c.graph, plans, blocks);
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
std::vector<std::vector<std::uint64_t>> random_edge_bytes(Rng& rng, const CommGraph& g) {
  std::vector<std::vector<std::uint64_t>> sizes;
  const int kind = pick(rng, 0, 4);
  for (const auto& out : g.out) {
    std::vector<std::uint64_t> row;
    for (std::size_t j = 0; j < out.size(); ++j) {
      switch (kind) {
        case 0:
          row.push_back(0);
          break;
        case 1:
          row.push_back(static_cast<std::uint64_t>(pick(rng, 0, 200)));
          break;
        case 2:
          row.push_back(chance(rng, 0.3) ? 0 : static_cast<std::uint64_t>(pick(rng, 1, 9000)));
          break;
        case 3:  // past the bundle prefix: second messages
          row.push_back(static_cast<std::uint64_t>(pick(rng, 4000, 70000)));
          break;
        default:
          row.push_back(4096);
          break;
      }
    }
    sizes.push_back(std::move(row));
  }
  return sizes;
}

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
    std::vector<Plan> plans;
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
      const MixedPlan m =
          mix_plans({{Variant::kLinear, &lin[ur]}, {Variant::kAggregated, &agg[ur]}}, in, outl.size(), true);
      std::vector<Variant> choice;
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
      plans.push_back(select(m, choice));
    }
    const SimResult mixed = simulate_alltoall(c.graph, plans, sizes);
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
