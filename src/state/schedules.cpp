#include "state/schedules.h"

#include <mpi.h>

#include <exception>

#include "algos/linear_plan.h"
#include "algos/mixed_plan.h"
#include "state/plan_input.h"
#include "support/log.h"

namespace nbrcoll {

namespace {

using algos::Variant;

// A linear plan's tags all 0 (a graph set up without agreement): its
// messages between two ranks then match in posting order (MPI's
// non-overtaking rule), the same at both ends: the receiver posts in
// in-list order, the sender in out-list order (the staggered own sends keep
// that order per peer).
void zero_tags(algos::Plan& plan) {
  for (algos::Recv& r : plan.recvs) r.tag = 0;
  for (algos::Send& x : plan.sends) x.tag = 0;
}

// The family's schedule member.
algos::Schedule& schedule_of(PlanSet& set, bool alltoall) {
  return alltoall ? set.alltoall : set.gather;
}

// One family's linear plan and schedule; `zero`: its tags all 0.
void build_linear_family(const algos::PlanInput& input, PlanSet& set, bool alltoall, bool zero) {
  algos::Plan& plan = alltoall ? set.alltoall_linear : set.linear;
  plan = alltoall ? algos::build_linear_alltoall_plan(input) : algos::build_linear_plan(input);
  if (zero) zero_tags(plan);
  std::vector<int> node_of;
  node_of.reserve(input.places.size());
  for (const algos::RankPlace& p : input.places) node_of.push_back(p.node);
  schedule_of(set, alltoall) = algos::compile_schedule(
      algos::mix_plans({{Variant::kLinear, &plan}}, input.in, input.out.size(), alltoall), node_of);
}

// One family's schedule of a graph with every planner, from its plans.
void build_mixed_family(const GraphInfo& info, bool alltoall) {
  const algos::PlanInput& input = info.plans->input;
  schedule_of(*info.plans, alltoall) = algos::compile_schedule(
      algos::mix_plans(family_plans(*info.plans, alltoall), input.in, input.out.size(), alltoall), info.node_of);
}

// The family's schedule, built once for every graph sharing the plan set;
// its members are read only after their call_once.
void build_lazily(const GraphInfo& info, bool alltoall) {
  std::atomic<bool>& ready = alltoall ? info.plans->alltoall_ready : info.plans->gather_ready;
  if (ready.load(std::memory_order_acquire)) return;
  std::call_once(alltoall ? info.plans->alltoall_built : info.plans->gather_built, [&info, alltoall] {
    try {
      if (info.unagreed) {
        build_linear_family(info.plans->input, *info.plans, alltoall, true);
      } else {
        build_mixed_family(info, alltoall);
      }
    } catch (const std::exception& e) {
      log(LogLevel::kWarn, "cannot build a graph's schedule (%s), which its peers cannot learn; stopping the job",
          e.what());
      PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
      throw;
    }
  });
  ready.store(true, std::memory_order_release);
}

}  // namespace

void build_linear_plans(const algos::PlanInput& input, PlanSet& set) {
  build_linear_family(input, set, false, false);
  build_linear_family(input, set, true, false);
}

std::vector<std::pair<Variant, const algos::Plan*>> family_plans(const PlanSet& set, bool alltoall) {
  if (alltoall) return {{Variant::kLinear, &set.alltoall_linear}, {Variant::kAggregated, &set.alltoall_aggregated}};
  return {{Variant::kLinear, &set.linear}, {Variant::kLeader, &set.leader}, {Variant::kAggregated, &set.aggregated}};
}

const algos::Schedule& schedule_for(const GraphInfo& info, bool alltoall) {
  if (info.unagreed || info.mixed_lazily) build_lazily(info, alltoall);
  return schedule_of(*info.plans, alltoall);
}

void ensure_linear_plans(const GraphInfo& info) {
  if (!info.unagreed) return;
  build_lazily(info, false);
  build_lazily(info, true);
}

}  // namespace nbrcoll
