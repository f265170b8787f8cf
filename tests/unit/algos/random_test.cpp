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

#include "graphs.h"
#include "mixed_plan.h"
#include "test_support.h"

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

// Per-call mixing: each origin's block goes by linear or leader, chosen per
// origin (as the executor does from B(origin)); every rank's selection of its
// mixed plan must still deliver every byte, never deadlock, and never move
// more than linear. The choice is a function of the origin alone, the same on
// every rank, like a threshold on B(origin).
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
    std::vector<MixedPlan> mixed;
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      mixed.push_back(mix_plans(linear[ur], leader[ur], c.graph.in[ur]));
      ASSERT_EQ(mixed.back().plan.recvs.size(), linear[ur].recvs.size() + leader[ur].recvs.size());
    }
    // 0: all linear, 1: all leader, 2: random per origin, 3: by block size.
    for (int mode = 0; mode < 4; ++mode) {
      const std::vector<std::uint64_t>& blocks = c.blocks[static_cast<std::size_t>(mode % 2)];
      std::vector<bool> leader_for(static_cast<std::size_t>(p));
      for (int o = 0; o < p; ++o) {
        const auto uo = static_cast<std::size_t>(o);
        leader_for[uo] = mode == 1 || (mode == 2 && chance(rng, 0.5)) || (mode == 3 && blocks[uo] >= 1000);
      }
      std::vector<Plan> plans;
      for (int r = 0; r < p; ++r) {
        const MixedPlan& m = mixed[static_cast<std::size_t>(r)];
        std::vector<Variant> choice;
        for (const int o : m.origins)
          choice.push_back(leader_for[static_cast<std::size_t>(o)] ? Variant::kLeader : Variant::kLinear);
        plans.push_back(select(m, choice));
      }
      const SimResult got = simulate(c.graph, plans, blocks);
      ASSERT_TRUE(got.ok()) << "case " << i << " mode " << mode << ": " << c.what << "\n" << joined(got.errors);
      const SimResult lin = simulate(c.graph, linear, blocks);
      const auto worse = compare_with_linear(got, lin);
      ASSERT_TRUE(worse.empty()) << "case " << i << " mode " << mode << ": " << c.what << "\n" << joined(worse);
      if (mode < 2) {
        // All one variant: exactly that planner's fragments.
        const SimResult same = simulate(c.graph, mode == 0 ? linear : leader, blocks);
        EXPECT_EQ(got.fragments, same.fragments) << "case " << i;
        EXPECT_EQ(got.network_bytes, same.network_bytes) << "case " << i;
      }
      ++mixed_calls;
    }
  }
  EXPECT_GT(mixed_calls, 0u);
}

TEST(MixedPlans, TagsOfTheTwoVariantsNeverMeet) {
  Plan linear;
  linear.rank = 0;
  linear.recvs.push_back({1, 1, {}, 0, 0, LinkClass::kNetwork});
  linear.sends.push_back({1, 0, {}, -1, -1, 0, LinkClass::kNetwork});
  Plan leader = linear;
  leader.sends.push_back({2, 1, {0, 1, 2}, 0, 0, 1, LinkClass::kLinked});
  const MixedPlan m = mix_plans(linear, leader, {1});
  ASSERT_EQ(m.plan.recvs.size(), 2u);
  EXPECT_EQ(m.plan.recvs[0].tag, 0);
  EXPECT_EQ(m.plan.recvs[1].tag, 1);
  EXPECT_EQ(m.plan.sends[2].tag, 3);
  EXPECT_EQ(m.plan.sends[2].after_recv, 1);  // remapped to the leader copy of the receive
  EXPECT_EQ(largest_tag(m), 3);
  EXPECT_EQ(m.origins, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.home_slot, (std::vector<int>{-1, 0}));
  const Plan only_leader_for_1 = select(m, {Variant::kLinear, Variant::kLeader});
  ASSERT_EQ(only_leader_for_1.recvs.size(), 1u);
  EXPECT_EQ(only_leader_for_1.recvs[0].tag, 1);
  ASSERT_EQ(only_leader_for_1.sends.size(), 2u);  // own block by linear, the forward of 1's block by leader
  EXPECT_EQ(only_leader_for_1.sends[1].after_recv, 0);
}

}  // namespace
}  // namespace nbrcoll::algos::testing
