// Shared helpers of the planner tests: the whole-communicator checks for both
// planners and a flat view of the fragments a set of plans moves.
#pragma once

#include <gtest/gtest.h>

#include <compare>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "algos/plan.h"
#include "algos/simulator.h"
#include "algos/testing/graphs.h"

namespace nbrcoll::algos::testing {

// One non-empty message of a plan, in bytes, for a given block size.
struct Moved {
  int from = 0;
  int to = 0;
  int origin = 0;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  auto operator<=>(const Moved&) const = default;
};

inline std::set<Moved> moved(const std::vector<Plan>& plans, std::uint64_t block) {
  std::set<Moved> out;
  for (const Plan& p : plans) {
    for (const Send& s : p.sends) {
      const ByteRange r = share_bytes(s.share, block);
      if (r.size() > 0) out.insert({p.rank, s.peer, s.origin, r.begin, r.end});
    }
  }
  return out;
}

// Only what `origin`'s block does.
inline std::set<Moved> moved_of(const std::vector<Plan>& plans, std::uint64_t block, int origin) {
  std::set<Moved> out;
  for (const Moved& m : moved(plans, block)) {
    if (m.origin == origin) out.insert(m);
  }
  return out;
}

struct CaseOutcome {
  std::vector<std::string> errors;  // empty: all properties hold
  SimResult leader;                 // of the last block-size set
  SimResult linear;
  SimResult aggregated;
};

// Checks `candidate` (properties 1 and 2) and against linear (property 3).
inline void check_against_linear(const char* name, const SimResult& candidate, const SimResult& linear,
                                 std::vector<std::string>& errors) {
  for (const auto& e : candidate.errors) errors.push_back(std::string(name) + ": " + e);
  if (candidate.ok() && linear.ok()) {
    for (const auto& e : compare_with_linear(candidate, linear))
      errors.push_back(std::string(name) + " vs linear: " + e);
  }
}

// Builds the allgather planners' plans once and checks properties (1)-(3)
// for every set of block sizes (one size per rank in each set).
inline CaseOutcome check_case(const CommGraph& graph, const std::vector<std::vector<std::uint64_t>>& block_sets) {
  CaseOutcome out;
  if (const std::string bad = validate_graph(graph); !bad.empty()) {
    out.errors.push_back("invalid graph: " + bad);
    return out;
  }
  const std::vector<Plan> leader = build_plans(graph, build_leader_plan);
  const std::vector<Plan> linear = build_plans(graph, build_linear_plan);
  const std::vector<Plan> aggregated = build_plans(graph, build_aggregated_plan);
  for (const auto& blocks : block_sets) {
    out.linear = simulate(graph, linear, blocks);
    out.leader = simulate(graph, leader, blocks);
    out.aggregated = simulate(graph, aggregated, blocks);
    for (const auto& e : out.linear.errors) out.errors.push_back("linear: " + e);
    check_against_linear("leader", out.leader, out.linear, out.errors);
    check_against_linear("aggregated", out.aggregated, out.linear, out.errors);
    if (!out.errors.empty()) {
      out.errors.push_back("(first block size " + std::to_string(blocks.empty() ? 0 : blocks[0]) + ")");
      return out;
    }
  }
  return out;
}

// The alltoall planners (linear and aggregated) on one set of edge sizes
// (edge_bytes[s][j] for every out-list entry).
inline CaseOutcome check_alltoall_case(const CommGraph& graph,
                                       const std::vector<std::vector<std::uint64_t>>& edge_bytes) {
  CaseOutcome out;
  if (const std::string bad = validate_graph(graph); !bad.empty()) {
    out.errors.push_back("invalid graph: " + bad);
    return out;
  }
  out.linear = simulate_alltoall(graph, build_plans(graph, build_linear_alltoall_plan), edge_bytes);
  out.aggregated = simulate_alltoall(graph, build_plans(graph, build_aggregated_alltoall_plan), edge_bytes);
  for (const auto& e : out.linear.errors) out.errors.push_back("linear alltoall: " + e);
  check_against_linear("aggregated alltoall", out.aggregated, out.linear, out.errors);
  return out;
}

// A call that mixes variants moves its payload bytes never above linear's,
// and crosses nodes with at most linear's messages plus the aggregated plan's
// own network bundles (they always travel, header only when every piece
// went by another variant): `bundles` is the all-aggregated result.
inline std::vector<std::string> compare_mixed_with_linear(SimResult mixed, SimResult linear, const SimResult& bundles) {
  std::vector<std::string> errors;
  for (std::size_t pair = 0; pair < mixed.network_messages.size() && pair < linear.network_messages.size(); ++pair) {
    const std::uint64_t allowed = linear.network_messages[pair] + bundles.network_messages[pair];
    if (mixed.network_messages[pair] > allowed)
      errors.push_back("network messages of node pair " + std::to_string(pair) + ": " +
                       std::to_string(mixed.network_messages[pair]) + " > " + std::to_string(allowed));
  }
  mixed.network_messages.clear();
  linear.network_messages.clear();
  for (const auto& e : compare_with_linear(mixed, linear)) errors.push_back(e);
  return errors;
}

inline std::vector<std::uint64_t> same_blocks(const CommGraph& g, std::uint64_t bytes) {
  return std::vector<std::uint64_t>(static_cast<std::size_t>(g.size()), bytes);
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

constexpr std::uint64_t kKiB = 1024;

// Whether a simulation reported an error that says `what`.
inline bool mentions(const SimResult& r, const std::string& what) {
  for (const auto& e : r.errors) {
    if (e.find(what) != std::string::npos) return true;
  }
  return false;
}

// Every ordered pair of ranks s != d: 2 nodes of 2 ranks.
inline CommGraph complete_2x2() {
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 2);
  std::vector<Edge> edges;
  for (int s = 0; s < 4; ++s) {
    for (int d = 0; d < 4; ++d) {
      if (s != d) edges.emplace_back(s, d);
    }
  }
  set_edges(g, edges);
  return g;
}

// Both planners pass the whole-communicator checks at empty, tiny, odd and
// 1 KiB blocks.
inline void expect_checks_pass(const CommGraph& g) {
  const CaseOutcome out = check_case(
      g, {same_blocks(g, 0), same_blocks(g, 1), same_blocks(g, 333), same_blocks(g, 777), same_blocks(g, kKiB)});
  EXPECT_TRUE(out.errors.empty()) << joined(out.errors);
}

}  // namespace nbrcoll::algos::testing
