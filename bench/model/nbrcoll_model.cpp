// nbrcoll-model: what nbrcoll's cost model predicts for each plan of a
// neighbourhood collective on N nodes of a node model, and which plan `auto`
// would take, without a cluster (no MPI). See bench/model/README.md.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "bench/core/matrix_gen.h"
#include "bench/model/model_graph.h"
#include "bench/model/model_machine.h"
#include "bench/model/model_options.h"
#include "bench/model/model_predict.h"
#include "bench/model/model_report.h"
#include "nbrcoll/nbrcoll.h"

using namespace nbrmodel;

namespace {

int fail(const std::string& message, int status) {
  std::cerr << "nbrcoll-model: " << message << "\n";
  return status;
}

void warn_if_large(const ModelOptions& o, int nodes, double edges) {
  if (edges <= static_cast<double>(o.warn_edges)) return;
  std::fprintf(stderr,
               "nbrcoll-model: warning: %d nodes: about %.0f edges (more than %llu): planning every rank takes long "
               "and much memory; typical runs keep 8-32 neighbours per rank (e.g. --degree 16)\n",
               nodes, edges, static_cast<unsigned long long>(o.warn_edges));
}

}  // namespace

int main(int argc, char** argv) {
  ModelOptions o;
  try {
    o = parse_model_options({argv + 1, argv + argc});
  } catch (const std::invalid_argument& e) {
    return fail(e.what(), 2);
  }
  if (o.help) {
    std::cout << model_usage();
    return 0;
  }
  if (o.version) {
    std::cout << "nbrcoll-model (nbrcoll) " << NBRCOLL_VERSION_STRING << "\n";
    return 0;
  }
  if (!parse_node_model(o.node))
    return fail("--node: expected frontier, mi250, mi300x or flat, got '" + o.node + "'", 2);
  std::string error;
  const auto machine = load_machine(o.machine, o.node, error);
  if (!machine) return fail(error, o.machine.empty() ? 2 : 1);

  nbrbench::CsrMatrix matrix;
  std::ofstream csv;
  try {
    if (o.pattern == "matrix") matrix = nbrbench::load_matrix(o.matrix);
    if (!o.csv.empty()) {
      csv.open(o.csv, std::ios::trunc);
      if (!csv) throw std::runtime_error("cannot write '" + o.csv + "'");
      csv << kModelCsvHeader << '\n';
    }
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }

  print_heading(std::cout, o, machine->description);
  for (const int nodes : o.nodes) {
    const auto start = std::chrono::steady_clock::now();
    const int ranks = nodes * o.ranks_per_node;
    warn_if_large(o, nodes, expected_edges(o, ranks, &matrix));
    Block b;
    b.nodes = nodes;
    {
      const nbrcoll::algos::CommGraph g = model_graph(o, nodes, &matrix);
      b.graph = summarize_graph(g);
      b.prediction = predict(g, o.alltoall, machine->model, o.ranks_per_node, o.sizes);
    }
    print_block(std::cout, o, b);
    std::cout.flush();
    if (csv.is_open()) write_model_csv(csv, o, machine->model.name, b);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::fprintf(stderr, "nbrcoll-model: %d nodes (%d ranks, %llu edges) done in %.1f s\n", nodes, ranks,
                 static_cast<unsigned long long>(b.graph.edges), took.count());
  }
  if (csv.is_open() && !csv.flush()) return fail("cannot write '" + o.csv + "'", 1);
  return 0;
}
