// The linear alltoall plan pairs each out-edge's own block with exactly the
// receive slot MPI's rule names: the k-th edge from s to d in s's out-list
// lands in the slot of the k-th occurrence of s in d's in-list.
#include <gtest/gtest.h>

#include <map>
#include <tuple>

#include "algos/testing/graphs.h"

namespace nbrcoll::algos::testing {
namespace {

using EdgeKey = std::tuple<int, int, int>;  // sender, out-edge index, receiver

// MPI's rule in closed form: (sender, out-edge) -> (receiver, slot).
std::map<EdgeKey, int> expected_slots(const CommGraph& g) {
  std::map<EdgeKey, int> want;
  for (int s = 0; s < g.size(); ++s) {
    std::map<int, int> nth;  // occurrences of each destination so far
    const auto& out = g.out[static_cast<std::size_t>(s)];
    for (int j = 0; j < static_cast<int>(out.size()); ++j) {
      const int d = out[static_cast<std::size_t>(j)];
      if (d == kNoRank) continue;
      int k = nth[d]++;
      const auto& in = g.in[static_cast<std::size_t>(d)];
      for (int slot = 0; slot < static_cast<int>(in.size()); ++slot) {
        if (in[static_cast<std::size_t>(slot)] == s && k-- == 0) {
          want[{s, j, d}] = slot;
          break;
        }
      }
    }
  }
  return want;
}

// What the plans do: every send matched with its receive by (sender,
// receiver, tag), self edges by their local copies.
std::map<EdgeKey, int> planned_slots(const std::vector<Plan>& plans) {
  std::map<std::tuple<int, int, int>, int> recv_slot;  // (sender, receiver, tag) -> slot
  for (const Plan& p : plans) {
    for (const Recv& r : p.recvs) {
      EXPECT_TRUE(recv_slot.emplace(std::make_tuple(r.peer, p.rank, r.tag), r.slot).second) << "duplicate tag";
    }
  }
  std::map<EdgeKey, int> got;
  for (const Plan& p : plans) {
    for (const Send& s : p.sends) {
      EXPECT_EQ(s.after_recv, -1);
      EXPECT_EQ(s.origin, p.rank);
      const auto it = recv_slot.find({p.rank, s.peer, s.tag});
      if (it == recv_slot.end()) {
        ADD_FAILURE() << "send without a receive: " << p.rank << " -> " << s.peer << " tag " << s.tag;
        continue;
      }
      EXPECT_TRUE(got.emplace(EdgeKey{p.rank, s.out_edge, s.peer}, it->second).second);
      recv_slot.erase(it);
    }
    for (const LocalCopy& c : p.copies) {
      EXPECT_EQ(c.from_slot, -1);
      EXPECT_TRUE(got.emplace(EdgeKey{p.rank, c.from_out_edge, p.rank}, c.to_slot).second);
    }
  }
  EXPECT_TRUE(recv_slot.empty()) << recv_slot.size() << " receives without a send";
  return got;
}

std::vector<Plan> alltoall_plans(const CommGraph& g) {
  return build_plans(g, build_linear_alltoall_plan);
}

TEST(AlltoallLinearPlan, DuplicateAndSelfEdgesPairInListOrder) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 4);
  set_edges(g, {{0, 5}, {0, 5}, {0, 0}, {5, 0}, {0, 0}, {3, 3}, {0, 5}, {7, 2}});
  ASSERT_EQ(validate_graph(g), "");
  EXPECT_EQ(planned_slots(alltoall_plans(g)), expected_slots(g));
}

TEST(AlltoallLinearPlan, RandomGraphsWithNullsMatchMpiRule) {
  Rng rng(20261123);
  for (int round = 0; round < 40; ++round) {
    const int ranks = 1 + static_cast<int>(rng() % 12);
    CommGraph g = make_uniform_comm(Model::kFrontier, (ranks + 3) / 4, 4);
    std::vector<Edge> edges = erdos_renyi_edges(g.size(), 0.4, rng);
    // Duplicates and self edges on top.
    for (int k = 0; k < g.size(); ++k) {
      edges.push_back({k, k});
      edges.push_back({k, static_cast<int>(rng() % static_cast<unsigned>(g.size()))});
    }
    set_edges(g, edges, &rng, 0.15);
    ASSERT_EQ(validate_graph(g), "");
    const auto plans = alltoall_plans(g);
    EXPECT_EQ(planned_slots(plans), expected_slots(g)) << "round " << round;
  }
}

// Cartesian communicators: out-edge j of every rank fills slot j ^ 1 of its
// receiver (MPI-4.1 section 8.6, Example 8.10), also where both neighbours
// of a periodic dimension of 2 are one rank and where a periodic dimension
// of 1 makes a rank its own neighbour twice, in any dimension.
TEST(AlltoallLinearPlan, CartesianOutEdgeFillsTheMirrorSlot) {
  const std::vector<std::pair<std::vector<int>, std::vector<bool>>> grids = {{{2}, {true}},
                                                                             {{1}, {true}},
                                                                             {{2, 2}, {true, true}},
                                                                             {{2, 3}, {true, false}},
                                                                             {{1, 2}, {true, true}},
                                                                             {{3, 1, 2}, {true, true, true}},
                                                                             {{2, 1, 1}, {true, true, false}},
                                                                             {{4, 3}, {true, true}}};
  for (const auto& [dims, periods] : grids) {
    int size = 1;
    for (const int d : dims) size *= d;
    CommGraph g = make_uniform_comm(Model::kFrontier, 1, size);
    set_cartesian(g, dims, periods);
    ASSERT_EQ(validate_graph(g), "");
    std::map<EdgeKey, int> want;
    for (int s = 0; s < g.size(); ++s) {
      const auto& out = g.out[static_cast<std::size_t>(s)];
      for (int j = 0; j < static_cast<int>(out.size()); ++j) {
        if (out[static_cast<std::size_t>(j)] != kNoRank) want[{s, j, out[static_cast<std::size_t>(j)]}] = j ^ 1;
      }
    }
    EXPECT_EQ(planned_slots(alltoall_plans(g)), want)
        << "grid of " << dims.size() << " dimensions, " << size << " ranks";
  }
}

TEST(AlltoallLinearPlan, AllgatherPlanKeepsTheSendBuffer) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 1, 4);
  set_edges(g, {{0, 1}, {0, 0}, {1, 0}});
  for (const PlanInput& input : make_plan_inputs(g)) {
    const Plan p = build_linear_plan(input);
    for (const Send& s : p.sends) EXPECT_EQ(s.out_edge, -1);
    for (const LocalCopy& c : p.copies) EXPECT_EQ(c.from_out_edge, -1);
  }
}

}  // namespace
}  // namespace nbrcoll::algos::testing
