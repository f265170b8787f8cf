#include "bench/bench_main.h"

#include <mpi.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "bench/core/graph.h"
#include "bench/core/options.h"
#include "bench/core/sizes.h"
#include "bench/device_buffers.h"
#include "bench/harness.h"
#include "bench/nbrcoll_hooks.h"
#include "bench/patterns.h"

namespace nbrbench {

namespace {

Graph build_graph(const Options& o, const World& w) {
  if (o.pattern == "rsg") return random_sparse_graph(w.procs, o.density, o.seed);
  if (o.pattern == "moore") {
    std::vector<int> dims(static_cast<std::size_t>(o.dims), 0);
    MPI_Dims_create(w.procs, o.dims, dims.data());
    return moore_graph(dims, o.radius);
  }
  std::ifstream f(o.graph);
  if (!f) throw std::runtime_error("cannot open graph file '" + o.graph + "'");
  return read_edge_list(f, w.procs);
}

void print(std::ostream& out, const Options& o, const Outcome& r) {
  out << "# nbrcoll-bench: " << r.description << "\n# warmup " << o.warmup << ", iters " << o.iters;
  if (o.iters_below > 0) out << " (" << o.small_iters << " below " << format_size(o.iters_below) << ")";
  out << ", validate " << (o.validate ? "on" : "off")
      << "; time per call = max over ranks; speed-up = native median / median\n";
  if (!r.settled.empty())
    out << "# before the warm-up, untimed calls until the plan settled (auto's tuning): " << r.settled << "\n";
  print_timing_table(out, r.rows);
  out << '\n';
  if (o.compute) {
    const ComputeSpec& c = *o.compute;
    const std::string what = (c.kind == ComputeKind::kBusy ? "busy computation for " : "an idle wait of ") +
                             (c.as_native ? std::string("the MPI's own pure median") : std::to_string(c.us) + " us");
    print_overlap_table(out, what, r.rows);
    out << '\n';
  }
  if (std::any_of(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.predicted_us.has_value(); })) {
    print_model_table(out, model_machine(), r.rows);
    out << '\n';
  }
  print_create_table(out, r.create);
  out << '\n';
  print_traffic_table(out, r.traffic_block, link_class_names(), r.traffic, network_class_index());
  out.flush();
}

void write_csv(const Options& o, const Outcome& r, const RunInfo& run) {
  bool header = true;
  if (o.csv_append) {
    std::ifstream probe(o.csv);
    std::string first;
    header = !probe || !std::getline(probe, first) || first.empty();
    // Never rows of this format under another header (an older version's).
    if (!header && first != kCsvHeader)
      throw std::runtime_error("'" + o.csv + "' has other columns than this version writes; append to a new file");
  }
  std::ofstream f(o.csv, o.csv_append ? std::ios::app : std::ios::trunc);
  if (!f) throw std::runtime_error("cannot write '" + o.csv + "'");
  if (header) f << kCsvHeader << '\n';
  write_csv_rows(f, r.rows, run);
}

}  // namespace

int run_bench(const std::vector<std::string>& args, std::ostream& out, std::vector<Row>* rows) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    const Options o = parse_options(args);
    if (o.help) {
      if (rank == 0) out << usage();
      return 0;
    }
    const World w = describe_world();
    const Outcome r = o.pattern == "spmm" ? run_spmm(o, w) : run_neighbor(o, w, build_graph(o, w));
    if (rows != nullptr) *rows = r.rows;
    if (rank == 0) {
      print(out, o, r);
      if (!o.csv.empty()) write_csv(o, r, describe_run(o.iters, w.emulated));
    }
    if (r.failed) {
      if (rank == 0) std::cerr << "nbrcoll-bench: validation failed (see the lines above)\n";
      return 1;
    }
    return 0;
  } catch (const DeviceFailure& e) {
    std::cerr << "[rank " << rank << "] nbrcoll-bench: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 2);
  } catch (const std::exception& e) {
    // Every rank parses the same input, so input errors hit all ranks alike.
    if (rank == 0)
      std::cerr << "nbrcoll-bench: " << e.what() << "\n"
                << (std::string(e.what()).find("--") != std::string::npos ? usage() : "");
  }
  return 2;
}

}  // namespace nbrbench
