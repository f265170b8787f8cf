#include "bench/model/model_report.h"

#include <cstdio>

#include "bench/core/report.h"
#include "bench/core/sizes.h"

namespace nbrmodel {

namespace {

using nbrcoll::algos::variant_name;

std::string op_name(const ModelOptions& o) {
  return o.alltoall ? "alltoall" : "allgather";
}

double speedup(double linear_us, double us) {
  return us > 0 ? linear_us / us : 1.0;
}

}  // namespace

std::string choice_summary(const nbrcoll::algos::CostTable& table) {
  Variant current = table.cheapest(0);
  std::string out = variant_name(current);
  for (std::uint64_t b = 1; b <= nbrcoll::algos::model_sizes().back(); b *= 2) {
    const Variant v = table.cheapest(b);
    if (v == current) continue;
    out += std::string(", ") + variant_name(v) + " from " + nbrbench::format_size(b);
    current = v;
  }
  return out;
}

void print_heading(std::ostream& out, const ModelOptions& o, const std::string& machine) {
  out << "# nbrcoll-model: predicted time of one MPI_Neighbor_" << op_name(o) << " per plan (algos/cost_model)\n"
      << "# node " << o.node << ", machine " << machine << ", " << o.ranks_per_node << " ranks per node, pattern "
      << o.pattern << " " << model_params(o) << "\n"
      << "# time = max over ranks of predict_rank_us; vs linear = linear's time / time (linear: one message per\n"
      << "# edge, as the MPI's own neighbor collective); auto = the cost table's choice; net = inter-node\n"
      << "# messages / bytes of one call, summed over ranks\n";
}

void print_block(std::ostream& out, const ModelOptions& o, const Block& b) {
  const Prediction& p = b.prediction;
  const int ranks = b.nodes * o.ranks_per_node;
  char line[256];
  std::snprintf(
      line, sizeof line, "\n## %d nodes x %d ranks = %d ranks, %llu edges (%.1f per rank, %.0f%% inter-node)\n",
      b.nodes, o.ranks_per_node, ranks, static_cast<unsigned long long>(b.graph.edges),
      static_cast<double>(b.graph.edges) / ranks,
      b.graph.edges ? 100.0 * static_cast<double>(b.graph.inter_node_edges) / static_cast<double>(b.graph.edges) : 0.0);
  out << line << "# auto: " << choice_summary(p.table) << "\n";
  std::snprintf(line, sizeof line, "# %-8s %-18s %14s %10s %12s %16s\n", "Size(B)", "Variant", "Time(us)", "vs linear",
                "Net msgs", "Net bytes");
  out << line;
  for (std::size_t i = 0; i < p.sizes.size(); ++i) {
    const std::string size = nbrbench::format_size(p.sizes[i]);
    const double linear = row_of(p, Variant::kLinear).time_us[i];
    for (const VariantPrediction& r : p.variants) {
      std::snprintf(line, sizeof line, "  %-8s %-18s %14.2f %9.2fx %12llu %16llu\n", size.c_str(),
                    variant_name(r.variant), r.time_us[i], speedup(linear, r.time_us[i]),
                    static_cast<unsigned long long>(r.net_messages[i]),
                    static_cast<unsigned long long>(r.net_bytes[i]));
      out << line;
    }
    const Variant pick = auto_pick(p, p.sizes[i]);
    const Variant best = direct_argmin(p, i);
    const double t = row_of(p, pick).time_us[i];
    const std::string name = std::string("auto=") + variant_name(pick);
    // The table interpolates between model sizes; say when that differs from the direct minimum.
    const std::string note = pick == best ? "" : std::string("   (least predicted here: ") + variant_name(best) + ")";
    std::snprintf(line, sizeof line, "  %-8s %-18s %14.2f %9.2fx%s\n", size.c_str(), name.c_str(), t,
                  speedup(linear, t), note.c_str());
    out << line;
  }
}

void write_model_csv(std::ostream& out, const ModelOptions& o, const std::string& machine, const Block& b) {
  using nbrbench::csv_quote;
  const Prediction& p = b.prediction;
  const std::string head = csv_quote(o.node) + ',' + csv_quote(machine) + ',' + csv_quote(o.pattern) + ',' +
                           csv_quote(model_params(o)) + ',' + op_name(o) + ',' + std::to_string(b.nodes) + ',' +
                           std::to_string(o.ranks_per_node) + ',' + std::to_string(b.nodes * o.ranks_per_node) + ',' +
                           std::to_string(b.graph.edges) + ',';
  char num[64];
  for (std::size_t i = 0; i < p.sizes.size(); ++i) {
    const double linear = row_of(p, Variant::kLinear).time_us[i];
    const Variant pick = auto_pick(p, p.sizes[i]);
    const std::string tail = std::string(",") + variant_name(pick) + ',' + variant_name(direct_argmin(p, i)) + '\n';
    const auto row = [&](const std::string& name, const VariantPrediction& r) {
      std::snprintf(num, sizeof num, "%.3f,%.4f,", r.time_us[i], speedup(linear, r.time_us[i]));
      out << head << p.sizes[i] << ',' << name << ',' << num << r.net_messages[i] << ',' << r.net_bytes[i] << tail;
    };
    for (const VariantPrediction& r : p.variants) row(variant_name(r.variant), r);
    row("auto", row_of(p, pick));
  }
}

}  // namespace nbrmodel
