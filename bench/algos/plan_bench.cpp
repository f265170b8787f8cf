// Cost of building one rank's plan (what MPI_Dist_graph_create_adjacent adds)
// in communicators of 128, 1024 and 8192 ranks, 8 ranks per Frontier node,
// for a random sparse graph (Erdős-Rényi, density 0.05) and a Moore
// neighbourhood (2-D periodic grid, radius 2). Only the planner is timed; the
// PlanInput (what the allgathers deliver) is prepared once.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>

#include "graphs.h"
#include "plan.h"

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
    set_edges(g, kind == kRandom ? erdos_renyi_edges(ranks, 0.05, rng) : moore_edges(ranks, 2, 2), &rng);
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

void BM_LeaderPlan(benchmark::State& state) {
  const PlanInput& input = input_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  Plan plan;
  for (auto _ : state) {
    plan = build_leader_plan(input);
    benchmark::DoNotOptimize(plan.sends.data());
  }
  report(state, input, plan);
}

void BM_LinearPlan(benchmark::State& state) {
  const PlanInput& input = input_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  Plan plan;
  for (auto _ : state) {
    plan = build_linear_plan(input);
    benchmark::DoNotOptimize(plan.sends.data());
  }
  report(state, input, plan);
}

void Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"ranks", "moore"});
  for (const int kind : {kRandom, kMoore}) {
    for (const int ranks : {128, 1024, 8192}) b->Args({ranks, kind});
  }
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(BM_LeaderPlan)->Apply(Args);
BENCHMARK(BM_LinearPlan)->Apply(Args);

}  // namespace

BENCHMARK_MAIN();
