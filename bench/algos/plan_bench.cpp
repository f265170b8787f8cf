// Cost of the local work graph creation adds to MPI_Dist_graph_create_adjacent
// (each planner, the mixing, the cost model's rows) for one rank, in
// communicators of 16 (the emulated cluster's 2 x 8), 128, 1024 and 8192
// ranks, 8 ranks per Frontier node, for a random sparse graph (Erdős-Rényi,
// density 0.05; 0.6 at 16 ranks, as the cluster runs use) and a Moore
// neighbourhood (2-D periodic grid, radius 2). Only the local work is timed;
// the PlanInput (what the exchanges deliver) is prepared once.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>

#include "algos/cost_model.h"
#include "algos/mixed_plan.h"
#include "algos/plan.h"
#include "algos/testing/graphs.h"

namespace {

using namespace nbrcoll::algos;
using namespace nbrcoll::algos::testing;

enum GraphKind { kRandom = 0, kMoore = 1 };

const PlanInput& input_for(int ranks, int kind) {
  static std::map<std::pair<int, int>, std::unique_ptr<PlanInput>> cache;
  auto& slot = cache[{ranks, kind}];
  if (!slot) {
    CommGraph g = make_uniform_comm(Model::kFrontier, ranks / 8, 8);
    Rng rng(42);
    set_edges(g, kind == kRandom ? erdos_renyi_edges(ranks, ranks <= 16 ? 0.6 : 0.05, rng) : moore_edges(ranks, 2, 2),
              &rng);
    slot = std::make_unique<PlanInput>(make_plan_input(g, ranks / 2 + 3));
  }
  return *slot;
}

void report(benchmark::State& state, const PlanInput& input, const Plan& plan) {
  std::size_t node_edges = 0;
  for (const auto& entry : input.node_in) node_edges += entry.second.size();
  state.counters["node_in_edges"] = static_cast<double>(node_edges);
  state.counters["out_edges"] = static_cast<double>(input.out.size());
  state.counters["sends"] = static_cast<double>(plan.sends.size());
  state.counters["recvs"] = static_cast<double>(plan.recvs.size());
  int max_tag = 0;
  for (const Send& s : plan.sends) max_tag = std::max(max_tag, s.tag);
  for (const Recv& r : plan.recvs) max_tag = std::max(max_tag, r.tag);
  state.counters["max_tag"] = max_tag;
}

template <Plan (*Build)(const PlanInput&)>
void BM_Planner(benchmark::State& state) {
  const PlanInput& input = input_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  Plan plan;
  for (auto _ : state) {
    plan = Build(input);
    benchmark::DoNotOptimize(plan.sends.data());
  }
  report(state, input, plan);
}

// The allgather plans of one rank mixed into the plan calls run.
void BM_MixPlans(benchmark::State& state) {
  const PlanInput& input = input_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const Plan linear = build_linear_plan(input);
  const Plan leader = build_leader_plan(input);
  const Plan aggregated = build_aggregated_plan(input);
  for (auto _ : state) {
    MixedPlan mixed =
        mix_plans({{Variant::kLinear, &linear}, {Variant::kLeader, &leader}, {Variant::kAggregated, &aggregated}},
                  input.in, input.out.size(), false);
    benchmark::DoNotOptimize(mixed.plan.sends.data());
  }
}

// The cost model's rows graph creation computes: every variant of both
// collectives at every model size.
void BM_CostRows(benchmark::State& state) {
  const PlanInput& input = input_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const std::pair<Variant, Plan> plans[] = {{Variant::kLinear, build_linear_plan(input)},
                                            {Variant::kLeader, build_leader_plan(input)},
                                            {Variant::kAggregated, build_aggregated_plan(input)},
                                            {Variant::kLinear, build_linear_alltoall_plan(input)},
                                            {Variant::kAggregated, build_aggregated_alltoall_plan(input)}};
  const MachineModel machine = *builtin_machine("frontier");
  const int ranks = ranks_on_node(input);
  // As src/state/cost_tables.cpp does: two counts of the node's network blocks serve the five rows.
  for (auto _ : state) {
    const NetworkBlocks blocks = node_network_block_counts(input);
    for (std::size_t i = 0; i < std::size(plans); ++i) {
      const bool dedup = i == 1 || i == 2;
      const auto row = predict_row_ns(plans[i].second, machine, ranks, dedup ? blocks.per_source : blocks.per_edge);
      benchmark::DoNotOptimize(row.data());
    }
  }
}

// Everything a graph seen for the first time plans at creation, as
// src/state/plan_set.cpp does: the five plans (the two aggregated ones from
// one pass) and their cost rows.
void BM_CreationPlans(benchmark::State& state) {
  const PlanInput& input = input_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const MachineModel machine = *builtin_machine("frontier");
  for (auto _ : state) {
    const Plan linear = build_linear_plan(input);
    const Plan leader = build_leader_plan(input);
    const auto [aggregated, alltoall_aggregated] = build_aggregated_plans(input);
    const Plan alltoall_linear = build_linear_alltoall_plan(input);
    const int ranks = ranks_on_node(input);
    const NetworkBlocks blocks = node_network_block_counts(input);
    const std::pair<const Plan*, std::uint64_t> rows[] = {{&linear, blocks.per_edge},
                                                          {&leader, blocks.per_source},
                                                          {&aggregated, blocks.per_source},
                                                          {&alltoall_linear, blocks.per_edge},
                                                          {&alltoall_aggregated, blocks.per_edge}};
    for (const auto& [plan, node_blocks] : rows) {
      const auto row = predict_row_ns(*plan, machine, ranks, node_blocks);
      benchmark::DoNotOptimize(row.data());
    }
  }
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"ranks", "moore"});
  for (const int kind : {kRandom, kMoore}) {
    for (const int ranks : {16, 128, 1024, 8192}) b->Args({ranks, kind});
  }
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_Planner<build_leader_plan>)->Name("BM_LeaderPlan")->Apply(Args);
BENCHMARK(BM_Planner<build_linear_plan>)->Name("BM_LinearPlan")->Apply(Args);
BENCHMARK(BM_Planner<build_aggregated_plan>)->Name("BM_AggregatedPlan")->Apply(Args);
BENCHMARK(BM_Planner<build_linear_alltoall_plan>)->Name("BM_LinearAlltoallPlan")->Apply(Args);
BENCHMARK(BM_Planner<build_aggregated_alltoall_plan>)->Name("BM_AggregatedAlltoallPlan")->Apply(Args);
BENCHMARK(BM_MixPlans)->Apply(Args);
BENCHMARK(BM_CostRows)->Apply(Args);
BENCHMARK(BM_CreationPlans)->Apply(Args);

}  // namespace

BENCHMARK_MAIN();
