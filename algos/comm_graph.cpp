// CommGraph helpers of the simulator: validation and the per-rank PlanInputs.
#include <algorithm>
#include <utility>

#include "algos/simulator.h"

namespace nbrcoll::algos {
namespace {

bool valid_rank(const CommGraph& g, int r) {
  return r >= 0 && r < g.size();
}

}  // namespace

std::string validate_graph(const CommGraph& g) {
  const auto p = static_cast<std::size_t>(g.size());
  if (g.in.size() != p || g.out.size() != p) return "in/out lists do not match the number of ranks";
  for (std::size_t r = 0; r < p; ++r) {
    const RankPlace& pl = g.places[r];
    if (pl.node < 0 || pl.node >= static_cast<int>(g.nodes.size())) return "rank " + std::to_string(r) + ": bad node";
  }
  std::vector<std::pair<int, int>> from_in;
  std::vector<std::pair<int, int>> from_out;
  for (int r = 0; r < g.size(); ++r) {
    for (const int s : g.in[static_cast<std::size_t>(r)]) {
      if (s == kNoRank) continue;
      if (!valid_rank(g, s)) return "rank " + std::to_string(r) + ": bad in-neighbour";
      from_in.emplace_back(s, r);
    }
    for (const int d : g.out[static_cast<std::size_t>(r)]) {
      if (d == kNoRank) continue;
      if (!valid_rank(g, d)) return "rank " + std::to_string(r) + ": bad out-neighbour";
      from_out.emplace_back(r, d);
    }
  }
  std::sort(from_in.begin(), from_in.end());
  std::sort(from_out.begin(), from_out.end());
  if (from_in != from_out) return "out-lists and in-lists disagree";
  if (g.pairing == EdgePairing::kCartesian) {
    for (std::size_t r = 0; r < p; ++r) {
      const std::vector<int>& out = g.out[r];
      if (g.in[r] != out || out.size() % 2 != 0) return "rank " + std::to_string(r) + ": not a Cartesian neighbourhood";
      for (std::size_t j = 0; j < out.size(); ++j) {
        const int d = out[j];
        if (d != kNoRank && g.in[static_cast<std::size_t>(d)][j ^ 1U] != static_cast<int>(r))
          return "rank " + std::to_string(r) + ": Cartesian lists that do not mirror rank " + std::to_string(d) + "'s";
      }
    }
  }
  return {};
}

PlanInput make_plan_input(const CommGraph& g, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  PlanInput input;
  input.rank = rank;
  input.places = g.places;
  const int node = g.places[r].node;
  input.node = g.nodes[static_cast<std::size_t>(node)];
  input.in = g.in[r];
  input.out = g.out[r];
  input.pairing = g.pairing;
  input.remote_leaders = g.remote_leaders;
  for (int q = 0; q < g.size(); ++q) {
    if (g.places[static_cast<std::size_t>(q)].node != node) continue;
    input.node_in.emplace_back(q, g.in[static_cast<std::size_t>(q)]);
    input.node_out.emplace_back(q, g.out[static_cast<std::size_t>(q)]);
  }
  return input;
}

std::vector<PlanInput> make_plan_inputs(const CommGraph& g) {
  std::vector<PlanInput> inputs;
  inputs.reserve(static_cast<std::size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r) inputs.push_back(make_plan_input(g, r));
  return inputs;
}

std::vector<Plan> build_plans(const CommGraph& g, Planner planner) {
  std::vector<Plan> plans;
  plans.reserve(static_cast<std::size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r) plans.push_back(planner(make_plan_input(g, r)));
  return plans;
}

}  // namespace nbrcoll::algos
