#include "state/plan_set.h"

#include <algorithm>
#include <mutex>
#include <tuple>

#include "state/cost_tables.h"
#include "state/schedules.h"

namespace nbrcoll {

namespace {

struct Kept {
  std::uint64_t hash = 0;
  PlanSetKind kind = PlanSetKind::kEveryPlanner;
  std::shared_ptr<PlanSet> set;  // found by set->input
};

// What a new set of `kind` holds from the start. Every planner: each
// plan and the cost model's prediction of this rank's time per variant and
// size (the agreement makes them the slowest rank's).
void plan(const algos::PlanInput& input, PlanSetKind kind, PlanSet& set) {
  if (kind == PlanSetKind::kLinearUntagged) return;
  if (kind == PlanSetKind::kLinear) {
    build_linear_plans(input, set);
    return;
  }
  set.linear = algos::build_linear_plan(input);
  set.leader = algos::build_leader_plan(input);
  std::tie(set.aggregated, set.alltoall_aggregated) = algos::build_aggregated_plans(input);
  set.alltoall_linear = algos::build_linear_alltoall_plan(input);
  cost_terms(set, input, set.cost_terms);
}

std::mutex g_mutex;
std::vector<Kept> g_kept;  // most recently used last

}  // namespace

std::shared_ptr<PlanSet> plan_set_for(algos::PlanInput&& input, PlanSetKind kind, bool& reused) {
  const std::uint64_t hash = algos::hash_plan_input(input);
  const std::lock_guard<std::mutex> lock(g_mutex);
  const auto hit = std::find_if(g_kept.begin(), g_kept.end(), [&](const Kept& k) {
    return k.hash == hash && k.kind == kind && k.set->input == input;
  });
  if (hit != g_kept.end()) {
    std::rotate(hit, hit + 1, g_kept.end());
    reused = true;
    return g_kept.back().set;
  }
  reused = false;
  auto set = std::make_shared<PlanSet>();
  set->input = std::move(input);
  plan(set->input, kind, *set);
  if (g_kept.size() == kKeptPlanSets) g_kept.erase(g_kept.begin());
  g_kept.push_back({hash, kind, set});
  return set;
}

}  // namespace nbrcoll
