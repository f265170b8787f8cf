#include "bench/model/model_predict.h"

#include <algorithm>
#include <mutex>
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

// What the second pass needs of one rank's plan of one variant.
struct RankRow {
  algos::LoadShape shape;
  std::uint64_t node_blocks = 0;
  std::vector<double> cpu_us;  // rank_cpu_us per model size, then per size asked for
};

// Every model size, then every size asked for.
std::vector<std::uint64_t> all_sizes(const std::vector<std::uint64_t>& sizes) {
  std::vector<std::uint64_t> all = algos::model_sizes();
  all.insert(all.end(), sizes.begin(), sizes.end());
  return all;
}

// Runs fn(first, last) over [0, ranks) split over the cores (ranks are
// independent: each part writes only its own ranks' entries).
template <typename Fn>
void over_ranks(int ranks, Fn fn) {
  const int workers = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(1, ranks / 64));
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w)
    threads.emplace_back([&, w] { fn(ranks * w / workers, ranks * (w + 1) / workers); });
  for (std::thread& t : threads) t.join();
}

// First pass: rows[v][r] for ranks [first, last).
void plan_ranks(const algos::CommGraph& g, bool alltoall, const algos::MachineModel& m,
                const std::vector<std::uint64_t>& sizes, int first, int last, std::vector<std::vector<RankRow>>& rows) {
  const std::vector<Variant> variants = model_variants(alltoall);
  for (int r = first; r < last; ++r) {
    algos::PlanInput input = algos::make_plan_input(g, r);
    input.remote_leaders = algos::remote_leaders_for(m);  // as the library agrees it at MPI_Init
    for (std::size_t v = 0; v < variants.size(); ++v) {
      RankRow& row = rows[v][static_cast<std::size_t>(r)];
      row.shape = algos::load_shape(planner_of(variants[v], alltoall)(input));
      row.node_blocks = algos::node_network_blocks(input, variants[v], alltoall);
      for (const std::uint64_t b : sizes) row.cpu_us.push_back(algos::rank_cpu_us(algos::rank_load(row.shape, b), m));
    }
  }
}

// Second pass: ranks [first, last) of every variant into `out` (max of
// times, sum of traffic), each rank's CPU work shared with its node's.
void predict_ranks(const algos::CommGraph& g, const algos::MachineModel& m, int ranks_on_node,
                   const std::vector<std::uint64_t>& sizes, const std::vector<std::vector<RankRow>>& rows,
                   const std::vector<std::vector<int>>& node_ranks, int first, int last,
                   std::vector<VariantPrediction>& out) {
  const std::vector<std::uint64_t> every = all_sizes(sizes);
  const std::size_t model = algos::model_sizes().size();
  std::vector<double> node_cpu;
  for (int r = first; r < last; ++r) {
    const auto node = static_cast<std::size_t>(g.places[static_cast<std::size_t>(r)].node);
    for (std::size_t v = 0; v < out.size(); ++v) {
      const RankRow& row = rows[v][static_cast<std::size_t>(r)];
      for (std::size_t k = 0; k < every.size(); ++k) {
        node_cpu.clear();
        for (const int q : node_ranks[node]) node_cpu.push_back(rows[v][static_cast<std::size_t>(q)].cpu_us[k]);
        const algos::RankLoad load = algos::rank_load(row.shape, every[k]);
        const double us = algos::predict_rank_us(load, m, ranks_on_node, every[k] * row.node_blocks, node_cpu);
        VariantPrediction& p = out[v];
        if (k < model) {
          p.model_ns[k] = std::max(p.model_ns[k], to_ns(us));
          continue;
        }
        const std::size_t i = k - model;
        p.time_us[i] = std::max(p.time_us[i], algos::reported_us(us, m));
        p.net_messages[i] += load.sent_messages[kNetwork];
        p.net_bytes[i] += load.sent_bytes[kNetwork];
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
  const int ranks = g.size();
  // Two passes: every rank's plans first, since a rank's time depends on
  // the CPU work of its node's ranks (algos::shared_cpu_us).
  std::vector<std::vector<RankRow>> rows(blank.size(), std::vector<RankRow>(static_cast<std::size_t>(ranks)));
  const std::vector<std::uint64_t> every = all_sizes(sizes);
  over_ranks(ranks, [&](int first, int last) { plan_ranks(g, alltoall, m, every, first, last, rows); });
  std::vector<std::vector<int>> node_ranks(g.nodes.size());
  for (int r = 0; r < ranks; ++r)
    node_ranks[static_cast<std::size_t>(g.places[static_cast<std::size_t>(r)].node)].push_back(r);
  std::mutex merging;
  Prediction p;
  p.sizes = sizes;
  p.variants = blank;
  over_ranks(ranks, [&](int first, int last) {
    std::vector<VariantPrediction> part = blank;
    predict_ranks(g, m, ranks_on_node, sizes, rows, node_ranks, first, last, part);
    const std::lock_guard<std::mutex> lock(merging);
    merge(p.variants, part);
  });
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
