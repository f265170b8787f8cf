// Shared helpers of the planner tests: the whole-communicator checks for both
// planners and a flat view of the fragments a set of plans moves.
#pragma once

#include <compare>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "plan.h"
#include "simulator.h"

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
};

// Builds both planners' plans once and checks properties (1)-(3) for every
// set of block sizes (one size per rank in each set).
inline CaseOutcome check_case(const CommGraph& graph, const std::vector<std::vector<std::uint64_t>>& block_sets) {
  CaseOutcome out;
  if (const std::string bad = validate_graph(graph); !bad.empty()) {
    out.errors.push_back("invalid graph: " + bad);
    return out;
  }
  const std::vector<Plan> leader = build_plans(graph, build_leader_plan);
  const std::vector<Plan> linear = build_plans(graph, build_linear_plan);
  for (const auto& blocks : block_sets) {
    out.leader = simulate(graph, leader, blocks);
    out.linear = simulate(graph, linear, blocks);
    for (const auto& e : out.leader.errors) out.errors.push_back("leader: " + e);
    for (const auto& e : out.linear.errors) out.errors.push_back("linear: " + e);
    if (out.leader.ok() && out.linear.ok()) {
      for (const auto& e : compare_with_linear(out.leader, out.linear)) out.errors.push_back("leader vs linear: " + e);
    }
    if (!out.errors.empty()) {
      out.errors.push_back("(first block size " + std::to_string(blocks.empty() ? 0 : blocks[0]) + ")");
      return out;
    }
  }
  return out;
}

inline std::vector<std::uint64_t> same_blocks(const CommGraph& g, std::uint64_t bytes) {
  return std::vector<std::uint64_t>(static_cast<std::size_t>(g.size()), bytes);
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace nbrcoll::algos::testing
