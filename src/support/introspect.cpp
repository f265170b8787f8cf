#include "support/introspect.h"

#include "call/decide.h"
#include "call/tuning.h"
#include "state/comm_state.h"
#include "state/cost_tables.h"
#include "state/late_plans.h"
#include "state/schedules.h"

namespace nbrcoll {

const algos::Plan* plan_for(MPI_Comm graph_comm, algos::Variant variant) {
  const CommState* state = find_state(graph_comm);
  if (state == nullptr) return nullptr;
  ensure_linear_plans(*state->info);
  switch (variant) {
    case algos::Variant::kLinear:
      return &state->info->plans->linear;
    case algos::Variant::kLeader:
      return &state->info->plans->leader;
    case algos::Variant::kAggregated:
      return &state->info->plans->aggregated;
  }
  return nullptr;
}

const algos::Plan* alltoall_plan_for(MPI_Comm graph_comm, algos::Variant variant) {
  const CommState* state = find_state(graph_comm);
  if (state == nullptr) return nullptr;
  ensure_linear_plans(*state->info);
  return variant == algos::Variant::kAggregated ? &state->info->plans->alltoall_aggregated
                                                : &state->info->plans->alltoall_linear;
}

CostView costs_for(MPI_Comm graph_comm, bool alltoall) {
  const CommState* state = find_state(graph_comm);
  if (state == nullptr) return {};
  const GraphInfo& info = *state->info;
  ensure_cost_tables(info);
  return alltoall ? CostView{&info.alltoall_model, &info.alltoall_costs, machine_model().name}
                  : CostView{&info.gather_model, &info.gather_costs, machine_model().name};
}

bool holds_every_plan(MPI_Comm graph_comm) {
  const CommState* state = find_state(graph_comm);
  return state != nullptr && !state->info->linear_only;
}

bool set_up_without_agreement(MPI_Comm graph_comm) {
  const CommState* state = find_state(graph_comm);
  return state != nullptr && state->info->unagreed;
}

bool tuning_busy(MPI_Comm graph_comm) {
  const CommState* state = find_state(graph_comm);
  return state != nullptr && nbrcoll::tuning_busy(*state);
}

bool tuning_closed(MPI_Comm graph_comm) {
  const CommState* state = find_state(graph_comm);
  return state == nullptr || nbrcoll::tuning_closed(*state);
}

bool nonblocking_forwards_on(MPI_Comm graph_comm, bool alltoall) {
  const CommState* state = find_state(graph_comm);
  return state != nullptr && nonblocking_may_forward(alltoall, *state->info);
}

std::optional<algos::Variant> tuned_variant(MPI_Comm graph_comm, bool alltoall, std::uint64_t bytes) {
  const CommState* state = find_state(graph_comm);
  const algos::Tuner* t = state != nullptr ? existing_tuner(*state, alltoall) : nullptr;
  if (t == nullptr) return std::nullopt;
  const int v = t->settled(algos::tune_bucket(bytes));
  if (v < 0) return std::nullopt;
  return static_cast<algos::Variant>(v);
}

std::size_t nonblocking_scratches(MPI_Comm graph_comm) {
  const CommState* state = find_state(graph_comm);
  return state != nullptr && state->pool ? state->pool->made() : 0;
}

int calls_before_late_plans() {
  return linear_calls_before_plans();
}

}  // namespace nbrcoll
