// The benchmark drivers: a neighbourhood collective over a graph (rsg, moore,
// file) and the SpMM kernel (neighbour allgatherv).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/core/exchange.h"
#include "bench/core/graph.h"
#include "bench/core/options.h"
#include "bench/core/report.h"
#include "bench/nbrcoll_hooks.h"
#include "bench/world.h"

namespace nbrbench {

struct Outcome {
  std::vector<Row> rows;
  std::vector<CreateRow> create;
  std::vector<TrafficRow> traffic;  // on rank 0
  std::uint64_t traffic_block = 0;  // block size the traffic is given for
  std::string description;          // one line for the table header
  // Untimed calls each algorithm made per size before timing, until its
  // plan stopped changing by itself (harness.h: settle): "auto: 1K 19, 16K 37".
  std::string settled;
  bool failed = false;  // a validation failure anywhere
};

// o.op in o.mode over `g` (g.n == procs) for every size and algorithm.
Outcome run_neighbor(const Options& o, const World& w, const Graph& g);

// Row-block SpMM with B gathered by MPI_Neighbor_allgatherv; graph creation
// inside the timed region. One sweep point per --cols value.
Outcome run_spmm(const Options& o, const World& w);

// Rank 0: traffic rows of one call of `op` per algorithm; `native` from the
// graph (one message per out-edge, bytes_of(rank, out-edge index) each), the
// others from nbrcoll's plans on comms[a]. `block_bytes` sizes the blocks
// that alltoall bundles carry for other ranks (allgather: unused).
std::vector<TrafficRow> collect_traffic(Op op, const std::vector<std::string>& algos,
                                        const std::vector<MPI_Comm>& comms, const World& w, const std::vector<int>& out,
                                        const EdgeBytes& bytes_of, const BlockBytes& block_bytes = {});

}  // namespace nbrbench
