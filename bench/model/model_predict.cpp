#include "bench/model/model_predict.h"

#include <algorithm>
#include <thread>

namespace nbrmodel {

namespace algos = nbrcoll::algos;

namespace {

constexpr auto kNetwork = static_cast<std::size_t>(algos::LinkClass::kNetwork);

algos::Planner planner_of(Variant v, bool alltoall) {
  if (alltoall)
    return v == Variant::kLinear ? algos::build_linear_alltoall_plan : algos::build_aggregated_alltoall_plan;
  if (v == Variant::kLinear) return algos::build_linear_plan;
  return v == Variant::kLeader ? algos::build_leader_plan : algos::build_aggregated_plan;
}

VariantPrediction empty_row(Variant v, std::size_t sizes) {
  VariantPrediction row;
  row.variant = v;
  row.model_ns.assign(algos::model_sizes().size(), 0);
  row.time_us.assign(sizes, 0.0);
  row.net_messages.assign(sizes, 0);
  row.net_bytes.assign(sizes, 0);
  return row;
}

// Ranks [first, last) of every variant into `rows` (max of times, sum of traffic).
void add_ranks(const algos::CommGraph& g, bool alltoall, const algos::MachineModel& m, int ranks_on_node,
               const std::vector<std::uint64_t>& sizes, int first, int last, std::vector<VariantPrediction>& rows) {
  const std::vector<std::uint64_t>& model = algos::model_sizes();
  for (int r = first; r < last; ++r) {
    algos::PlanInput input = algos::make_plan_input(g, r);
    input.remote_leaders = algos::remote_leaders_for(m);  // as the library agrees it at MPI_Init
    for (VariantPrediction& row : rows) {
      const algos::Plan plan = planner_of(row.variant, alltoall)(input);
      for (std::size_t k = 0; k < model.size(); ++k) {
        const double us = algos::predict_call_us(input, plan, row.variant, alltoall, m, ranks_on_node, model[k]);
        row.model_ns[k] = std::max(row.model_ns[k], to_ns(us));
      }
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const algos::RankLoad load = algos::rank_load(plan, sizes[i]);
        row.time_us[i] = std::max(
            row.time_us[i], algos::predict_call_us(input, plan, row.variant, alltoall, m, ranks_on_node, sizes[i]));
        row.net_messages[i] += load.sent_messages[kNetwork];
        row.net_bytes[i] += load.sent_bytes[kNetwork];
      }
    }
  }
}

void merge(std::vector<VariantPrediction>& into, const std::vector<VariantPrediction>& part) {
  for (std::size_t v = 0; v < into.size(); ++v) {
    VariantPrediction& a = into[v];
    const VariantPrediction& b = part[v];
    for (std::size_t k = 0; k < a.model_ns.size(); ++k) a.model_ns[k] = std::max(a.model_ns[k], b.model_ns[k]);
    for (std::size_t i = 0; i < a.time_us.size(); ++i) {
      a.time_us[i] = std::max(a.time_us[i], b.time_us[i]);
      a.net_messages[i] += b.net_messages[i];
      a.net_bytes[i] += b.net_bytes[i];
    }
  }
}

}  // namespace

std::vector<Variant> model_variants(bool alltoall) {
  if (alltoall) return {Variant::kLinear, Variant::kAggregated};
  return {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
}

std::uint64_t to_ns(double us) {
  return static_cast<std::uint64_t>(std::min(us * 1000.0, 9.0e18));
}

Prediction predict(const algos::CommGraph& g, bool alltoall, const algos::MachineModel& m, int ranks_on_node,
                   const std::vector<std::uint64_t>& sizes) {
  std::vector<VariantPrediction> blank;
  for (const Variant v : model_variants(alltoall)) blank.push_back(empty_row(v, sizes.size()));
  // Ranks are independent: split them over the cores (each part keeps its
  // own maxima and sums, merged at the end).
  const int ranks = g.size();
  const int workers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(1, ranks / 64));
  std::vector<std::vector<VariantPrediction>> parts(static_cast<std::size_t>(workers), blank);
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      add_ranks(g, alltoall, m, ranks_on_node, sizes, ranks * w / workers, ranks * (w + 1) / workers,
                parts[static_cast<std::size_t>(w)]);
    });
  }
  for (std::thread& t : threads) t.join();
  Prediction p;
  p.sizes = sizes;
  p.variants = blank;
  for (const auto& part : parts) merge(p.variants, part);
  p.table = offered_table(p.variants);
  return p;
}

algos::CostTable offered_table(const std::vector<VariantPrediction>& rows) {
  algos::CostTable all;
  for (const VariantPrediction& row : rows) {
    all.variants.push_back(row.variant);
    all.time_ns.push_back(row.model_ns);
  }
  return all.offered();  // the library's rule (src/state/cost_tables.cpp)
}

Variant auto_pick(const Prediction& p, std::uint64_t bytes) {
  return p.table.cheapest(bytes);
}

Variant direct_argmin(const Prediction& p, std::size_t i) {
  const VariantPrediction* best = &p.variants.front();
  for (const VariantPrediction& row : p.variants)
    if (row.time_us[i] < best->time_us[i]) best = &row;
  return best->variant;
}

const VariantPrediction& row_of(const Prediction& p, Variant v) {
  return *std::find_if(p.variants.begin(), p.variants.end(),
                       [v](const VariantPrediction& r) { return r.variant == v; });
}

}  // namespace nbrmodel
