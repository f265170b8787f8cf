// The benchmark drivers: neighbour allgather over a graph (rsg, moore, file)
// and the SpMM kernel (neighbour allgatherv).
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/options.h"
#include "core/report.h"
#include "world.h"

namespace nbrbench {

struct Outcome {
  std::vector<Row> rows;
  std::vector<CreateRow> create;
  std::vector<TrafficRow> traffic;  // on rank 0
  std::uint64_t traffic_block = 0;  // block size the traffic is given for
  std::string description;          // one line for the table header
  bool failed = false;              // a validation failure anywhere
};

// MPI_Neighbor_allgather over `g` (g.n == procs) for every size and algorithm.
Outcome run_allgather(const Options& o, const World& w, const Graph& g);

// Row-block SpMM with B gathered by MPI_Neighbor_allgatherv; graph creation
// inside the timed region. One sweep point per --cols value.
Outcome run_spmm(const Options& o, const World& w);

// Rank 0: traffic rows of one call per algorithm; `native` from the graph,
// the others from nbrcoll's plans on comms[a].
std::vector<TrafficRow> collect_traffic(const std::vector<std::string>& algos, const std::vector<MPI_Comm>& comms,
                                        const World& w, const std::vector<int>& out,
                                        const std::function<std::uint64_t(int)>& block_of);

}  // namespace nbrbench
