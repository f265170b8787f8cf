// nbrcoll-bench: times MPI_Neighbor_allgather(v) and _alltoall(v) (blocking,
// nonblocking, persistent) with several algorithms side by side
// (interleaved) on the RSG, Moore, SpMM and edge-list patterns.
// Linked against nbrcoll_static, so the collectives go through nbrcoll.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

#include "bench/core/graph.h"
#include "bench/core/options.h"
#include "bench/device_buffers.h"
#include "bench/harness.h"
#include "bench/nbrcoll_hooks.h"
#include "bench/patterns.h"
#include "nbrcoll/nbrcoll.h"

using namespace nbrbench;

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

void print(const Options& o, const Outcome& r) {
  std::cout << "# nbrcoll-bench: " << r.description << "\n# warmup " << o.warmup << ", iters " << o.iters
            << ", validate " << (o.validate ? "on" : "off")
            << "; time per call = max over ranks; speed-up = native median / median\n";
  print_timing_table(std::cout, r.rows);
  std::cout << '\n';
  if (std::any_of(r.rows.begin(), r.rows.end(), [](const Row& row) { return row.predicted_us.has_value(); })) {
    print_model_table(std::cout, model_machine(), r.rows);
    std::cout << '\n';
  }
  print_create_table(std::cout, r.create);
  std::cout << '\n';
  print_traffic_table(std::cout, r.traffic_block, link_class_names(), r.traffic, network_class_index());
  std::cout.flush();
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

// NBRCOLL_CLUSTER_FINALIZE_DIR=DIR (set by bench/cluster/run.sh under MPICH):
// write DIR/finalize.RANK holding the exit status this rank returns, right
// before MPI_Finalize, with the output flushed. run.sh ends a job whose every
// rank got this far but whose MPI then hangs in MPI_Finalize (MPICH 4.0.2).
void mark_finalize(int rank, int status) {
  const char* dir = std::getenv("NBRCOLL_CLUSTER_FINALIZE_DIR");
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (dir == nullptr || *dir == '\0') return;
  const std::string path = std::string(dir) + "/finalize." + std::to_string(rank);
  std::ofstream f(path, std::ios::trunc);
  f << status << '\n';
  f.close();
  if (!f) std::cerr << "[rank " << rank << "] nbrcoll-bench: cannot write " << path << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  // --version answers without starting MPI (no mpirun needed).
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--version") {
      std::cout << "nbrcoll-bench (nbrcoll) " << NBRCOLL_VERSION_STRING << '\n';
      return 0;
    }
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = 0;
  try {
    const Options o = parse_options({argv + 1, argv + argc});
    if (o.help) {
      if (rank == 0) std::cout << usage();
    } else {
      const World w = describe_world();
      const Outcome r = o.pattern == "spmm" ? run_spmm(o, w) : run_neighbor(o, w, build_graph(o, w));
      if (rank == 0) {
        print(o, r);
        if (!o.csv.empty()) write_csv(o, r, describe_run(o.iters, w.emulated));
      }
      if (r.failed) {
        if (rank == 0) std::cerr << "nbrcoll-bench: validation failed (see the lines above)\n";
        rc = 1;
      }
    }
  } catch (const DeviceFailure& e) {
    std::cerr << "[rank " << rank << "] nbrcoll-bench: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 2);
  } catch (const std::exception& e) {
    // Every rank parses the same input, so input errors hit all ranks alike.
    if (rank == 0)
      std::cerr << "nbrcoll-bench: " << e.what() << "\n"
                << (std::string(e.what()).find("--") != std::string::npos ? usage() : "");
    mark_finalize(rank, 2);
    MPI_Finalize();
    return 2;
  }
  mark_finalize(rank, rc);
  MPI_Finalize();
  return rc;
}
