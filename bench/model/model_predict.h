// What the cost model predicts for one communicator: per variant, the
// library's numbers (max over ranks of predict_rank_us, at the model's sizes
// and at the sizes asked for), the cost table `auto` chooses from, and the
// inter-node traffic that explains them. Pure: no MPI, unit-tested.
#pragma once

#include <cstdint>
#include <vector>

#include "algos/cost_model.h"
#include "algos/mixed_plan.h"
#include "algos/simulator.h"

namespace nbrmodel {

using nbrcoll::algos::Variant;

// The variants the library weighs: allgather linear, leader, aggregated;
// alltoall linear, aggregated (src/state/cost_tables.cpp's rows).
std::vector<Variant> model_variants(bool alltoall);

// A rank's predicted time in integer ns, as the library agrees on it
// (src/state/cost_tables.cpp: truncated, capped at 9e18).
std::uint64_t to_ns(double us);

struct VariantPrediction {
  Variant variant = Variant::kLinear;
  std::vector<std::uint64_t> model_ns;      // per model size: max over ranks of to_ns(predict_rank_us)
  std::vector<double> time_us;              // per size asked for: max over ranks of predict_rank_us
  std::vector<std::uint64_t> net_messages;  // per size asked for: inter-node messages, summed over ranks
  std::vector<std::uint64_t> net_bytes;     // the same for bytes (bundle headers included)
};

struct Prediction {
  std::vector<std::uint64_t> sizes;         // the sizes asked for
  std::vector<VariantPrediction> variants;  // in model_variants() order
  nbrcoll::algos::CostTable table;          // what `auto` chooses from
};

// Builds every rank's plan of each variant (keeping its load shape), then
// each rank's time with ranks_on_node = `ranks_on_node` for every rank and
// the CPU work of its node's ranks (algos::shared_cpu_us).
Prediction predict(const nbrcoll::algos::CommGraph& g, bool alltoall, const nbrcoll::algos::MachineModel& m,
                   int ranks_on_node, const std::vector<std::uint64_t>& sizes);

// The table the library offers from agreed rows: a variant other than
// linear that is never the cheapest at a model size is left out (so no
// call sends its messages; src/state/cost_tables.cpp drops aggregated so).
nbrcoll::algos::CostTable offered_table(const std::vector<VariantPrediction>& rows);

// What `auto` takes at `bytes` (the table's choice) and the variant whose
// own predicted time at size index `i` is least (ties: the earlier row).
Variant auto_pick(const Prediction& p, std::uint64_t bytes);
Variant direct_argmin(const Prediction& p, std::size_t i);
const VariantPrediction& row_of(const Prediction& p, Variant v);

}  // namespace nbrmodel
