// Cartesian communicators (MPI-4.1 section 8.6, Example 8.10; MPI Forum
// issue 153). A rank's lists are (-1, +1) pairs, one per dimension, and the
// block it sends towards -1 in a dimension lands in the receiver's +1 slot
// and vice versa. Where a periodic dimension has 2 processes both
// neighbours are one rank (and with 1 process the rank itself), so the
// distributed-graph rule (k-th occurrence with k-th occurrence) would
// deliver the pair's two blocks swapped. EdgePairing::kCartesian in the
// PlanInput makes every alltoall planner pair them as the standard says;
// the simulator checks every slot against the standard's rule, written from
// the lists alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "algos/testing/graphs.h"
#include "algos/testing/random_cases.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

struct Grid {
  std::vector<int> dims;
  std::vector<bool> periods;
  [[nodiscard]] int size() const {
    int n = 1;
    for (const int d : dims) n *= d;
    return n;
  }
  [[nodiscard]] std::string name() const {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i)
      s += (i > 0 ? "x" : "") + std::to_string(dims[i]) + (periods[i] ? "p" : "");
    return s;
  }
  // A periodic dimension of 1 or 2 processes: a peer named twice.
  [[nodiscard]] bool short_periodic() const {
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (periods[i] && dims[i] <= 2) return true;
    }
    return false;
  }
};

// 1-D, 2-D and 3-D grids up to 24 ranks, every combination of periods.
std::vector<Grid> grids() {
  const std::vector<std::vector<int>> shapes = {
      {1},    {2},    {3},    {4},       {5},       {2, 2},    {1, 2},    {2, 1},    {2, 3},    {3, 2},   {1, 4},
      {4, 4}, {3, 3}, {2, 4}, {2, 2, 2}, {1, 2, 3}, {2, 3, 2}, {3, 1, 2}, {1, 1, 2}, {2, 2, 4}, {3, 2, 4}};
  std::vector<Grid> out;
  for (const auto& dims : shapes) {
    const std::size_t n = dims.size();
    for (unsigned mask = 0; mask < (1U << n); ++mask) {
      Grid g{dims, std::vector<bool>(n)};
      for (std::size_t i = 0; i < n; ++i) g.periods[i] = ((mask >> i) & 1U) != 0;
      out.push_back(std::move(g));
    }
  }
  return out;
}

// `size` ranks in nodes of `per_node` (the last one may be smaller),
// model `model`, rank i of a node on device i % 8.
CommGraph nodes_of(int size, int per_node, Model model) {
  std::vector<NodeSpec> specs;
  for (int r = 0; r < size; r += per_node) {
    NodeSpec s;
    s.model = model;
    for (int i = 0; i < per_node && r + i < size; ++i) s.devices.push_back(i % 8);
    specs.push_back(std::move(s));
  }
  return make_comm(specs);
}

// The k that names the block of s's out-edge j on a Cartesian communicator:
// the occurrence of s in the receiver's in-list up to slot j ^ 1.
int cartesian_k(const CommGraph& g, int s, int j) {
  const int d = g.out[static_cast<std::size_t>(s)][static_cast<std::size_t>(j)];
  const std::vector<int>& there = g.in[static_cast<std::size_t>(d)];
  int k = 0;
  for (int i = 0; i < (j ^ 1); ++i) k += there[static_cast<std::size_t>(i)] == s ? 1 : 0;
  return k;
}

int slot_k(const CommGraph& g, int r, int slot) {
  const std::vector<int>& in = g.in[static_cast<std::size_t>(r)];
  int k = 0;
  for (int i = 0; i < slot; ++i) k += in[static_cast<std::size_t>(i)] == in[static_cast<std::size_t>(slot)] ? 1 : 0;
  return k;
}

TEST(EdgePairing, ReceiverOccurrences) {
  // A distributed graph: the out-list's own occurrence numbers.
  EXPECT_EQ(receiver_occurrences({7, 3, 7, kNoRank, 7}, EdgePairing::kListOrder), (std::vector<int>{0, 0, 1, 0, 2}));
  // Cartesian, periodic dimensions of 2: each pair's blocks cross.
  EXPECT_EQ(receiver_occurrences({5, 5, 7, 7}, EdgePairing::kCartesian), (std::vector<int>{1, 0, 1, 0}));
  // A dimension of 3 or more, or a border, names two peers: nothing crosses.
  EXPECT_EQ(receiver_occurrences({2, 2, kNoRank, 4, 1, 6}, EdgePairing::kCartesian),
            (std::vector<int>{1, 0, 0, 0, 0, 0}));
  // Periodic dimensions of 1: the rank itself, twice per dimension.
  EXPECT_EQ(receiver_occurrences({0, 0, 0, 0, 3, 3}, EdgePairing::kCartesian), (std::vector<int>{1, 0, 3, 2, 1, 0}));
  EXPECT_EQ(receiver_occurrences({}, EdgePairing::kCartesian), std::vector<int>{});
}

TEST(CartesianGraphs, ListsAreTheStandardsAndValidate) {
  CommGraph g = nodes_of(6, 6, Model::kFrontier);
  set_cartesian(g, {2, 3}, {true, false});
  EXPECT_EQ(validate_graph(g), "");
  // Rank 4 = (1, 1): dimension 0 (periodic, 2) names rank 1 twice;
  // dimension 1 (3, not periodic) ranks 3 and 5.
  EXPECT_EQ(g.out[4], (std::vector<int>{1, 1, 3, 5}));
  EXPECT_EQ(g.in[4], g.out[4]);
  // Rank 0 = (0, 0): its -1 neighbour in dimension 1 is past the border.
  EXPECT_EQ(g.out[0], (std::vector<int>{3, 3, kNoRank, 1}));
  // Lists that do not mirror are refused.
  std::swap(g.in[0][0], g.in[0][2]);
  std::swap(g.out[0][0], g.out[0][2]);
  EXPECT_NE(validate_graph(g), "");
}

// Every grid, on one node and on nodes of 1-4 ranks (frontier, mi250):
// allgather by linear, leader and aggregated; alltoall by linear and
// aggregated and mixed per edge, with random per-edge sizes; every slot
// against the standard's pairing, payload never above linear's.
TEST(CartesianGraphs, EveryPlannerOnEveryGrid) {
  Rng rng(20261126);
  int checked = 0;
  int crossed = 0;
  // One node, then nodes of 1-4 ranks.
  const std::vector<std::pair<int, Model>> layouts = {
      {64, Model::kFrontier}, {1, Model::kFrontier}, {2, Model::kMi250}, {3, Model::kFrontier}, {4, Model::kMi250}};
  for (const Grid& grid : grids()) {
    for (const auto& [per_node, model] : layouts) {
      CommGraph g = nodes_of(grid.size(), per_node, model);
      set_cartesian(g, grid.dims, grid.periods);
      const std::string what = grid.name() + ", " + std::to_string(per_node) + " ranks per node";
      ASSERT_EQ(validate_graph(g), "") << what;
      const CaseOutcome gathered = check_case(g, {same_blocks(g, 0), same_blocks(g, 1000), same_blocks(g, 70001)});
      ASSERT_TRUE(gathered.errors.empty()) << what << "\n" << joined(gathered.errors);
      const auto sizes = random_edge_bytes(rng, g);
      const CaseOutcome out = check_alltoall_case(g, sizes);
      ASSERT_TRUE(out.errors.empty()) << what << "\n" << joined(out.errors);
      // Per edge, linear or aggregated by a hash of the block {s, d, k}:
      // the sender names it from its out-edge, the receiver from its slot.
      const auto lin = build_plans(g, build_linear_alltoall_plan);
      const auto agg = build_plans(g, build_aggregated_alltoall_plan);
      const std::uint64_t salt = rng();
      const auto pick = [salt](int s, int d, int k) {
        const std::uint64_t h = (static_cast<std::uint64_t>(s) * 1000003 + static_cast<std::uint64_t>(d)) * 131 +
                                static_cast<std::uint64_t>(k) + salt;
        return (h * 0x9E3779B97F4A7C15ULL) >> 63 ? Variant::kAggregated : Variant::kLinear;
      };
      std::vector<MixedPlan> mixed;
      std::vector<std::vector<Variant>> choices;
      for (int r = 0; r < g.size(); ++r) {
        const auto ur = static_cast<std::size_t>(r);
        const MixedPlan& m = mixed.emplace_back(mix_plans(
            {{Variant::kLinear, &lin[ur]}, {Variant::kAggregated, &agg[ur]}}, g.in[ur], g.out[ur].size(), true));
        std::vector<Variant>& choice = choices.emplace_back();
        for (const Unit& u : m.units) {
          if (u.send_block >= 0) {
            const int d = g.out[ur][static_cast<std::size_t>(u.send_block)];
            choice.push_back(pick(r, d, cartesian_k(g, r, u.send_block)));
          } else {
            choice.push_back(pick(g.in[ur][static_cast<std::size_t>(u.slot)], r, slot_k(g, r, u.slot)));
          }
        }
      }
      const SimResult sim = simulate_mixed_alltoall(g, mixed, choices, sizes);
      ASSERT_TRUE(sim.ok()) << what << " (mixed)\n" << joined(sim.errors);
      const auto worse = compare_mixed_with_linear(sim, out.linear, out.aggregated);
      ASSERT_TRUE(worse.empty()) << what << " (mixed)\n" << joined(worse);
      ++checked;
      crossed += grid.short_periodic() ? 1 : 0;
    }
  }
  std::printf("checked %d Cartesian communicators, %d with a periodic dimension of 1 or 2\n", checked, crossed);
  EXPECT_GT(crossed, 0);
}

// The same plans made with the distributed-graph pairing: wrong exactly
// where a periodic dimension of 1 or 2 names a peer twice (the simulator
// must see the swapped blocks), identical elsewhere.
TEST(CartesianGraphs, ListOrderPairingIsWrongWherePeriodicDimensionsAreShort) {
  Rng rng(7);
  int caught = 0;
  for (const Grid& grid : grids()) {
    CommGraph g = nodes_of(grid.size(), 2, Model::kFrontier);
    set_cartesian(g, grid.dims, grid.periods);
    CommGraph as_graph = g;
    as_graph.pairing = EdgePairing::kListOrder;
    std::vector<std::vector<std::uint64_t>> sizes;
    for (const auto& out : g.out) sizes.emplace_back(out.size(), 64);
    for (const Planner planner : {build_linear_alltoall_plan, build_aggregated_alltoall_plan}) {
      const std::vector<Plan> wrong = build_plans(as_graph, planner);
      const SimResult sim = simulate_alltoall(g, wrong, sizes);
      if (grid.short_periodic()) {
        EXPECT_FALSE(sim.ok()) << grid.name() << ": the simulator missed blocks delivered swapped";
        caught += sim.ok() ? 0 : 1;
      } else {
        EXPECT_TRUE(sim.ok()) << grid.name() << "\n" << joined(sim.errors);
        EXPECT_EQ(wrong, build_plans(g, planner)) << grid.name() << ": no peer twice, the pairings agree";
      }
    }
  }
  EXPECT_GT(caught, 0);
}

}  // namespace
}  // namespace nbrcoll::algos::testing
