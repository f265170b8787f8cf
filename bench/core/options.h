// Command line of nbrcoll-bench. Pure parsing: no MPI, testable.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/compute.h"
#include "bench/core/exchange.h"

namespace nbrbench {

struct Options {
  std::string pattern;               // rsg | moore | spmm | file
  double density = 0.6;              // rsg
  std::uint64_t seed = 1;            // rsg
  int dims = 2;                      // moore
  int radius = 1;                    // moore
  std::string matrix;                // spmm: file or gen:...
  std::vector<int> cols{8};          // spmm: columns of B (a sweep when several)
  bool reuse_graph = false;          // spmm: one graph per way and column count, not one per call
  std::string graph;                 // file: edge list
  std::vector<std::uint64_t> sizes;  // bytes per block
  std::vector<std::string> algos{"native", "linear", "leader"};
  int warmup = 2;
  int iters = 10;
  // --iters-below SIZE:N: sizes below `iters_below` take `small_iters`
  // timed calls (cheap calls whose medians need more of them).
  std::uint64_t iters_below = 0;
  int small_iters = 0;
  [[nodiscard]] int iters_for(std::uint64_t size) const { return size < iters_below ? small_iters : iters; }
  int create_reps = 5;  // repetitions of the graph-creation timing
  bool validate = true;
  std::string csv;
  bool csv_append = false;
  bool help = false;
  bool inject_fault = false;     // tests only: corrupt one received byte
  bool thread_multiple = false;  // main() initialises MPI with MPI_THREAD_MULTIPLE
  std::string device;            // device backend plugin: buffers in device memory (rsg, moore, file)
  Op op = Op::kAllgather;        // rsg, moore, file (spmm: its own allgatherv)
  Mode mode = Mode::kBlocking;
  // --compute: each call (nonblocking, persistent) also timed with this much
  // computation between its start and its wait (overlap table).
  std::optional<ComputeSpec> compute;
};

// Throws std::invalid_argument with a message for the user.
Options parse_options(const std::vector<std::string>& args);
const char* usage();

// "density=0.6;seed=1" and the like: the CSV's params column (no commas).
std::string params_string(const Options& o);

}  // namespace nbrbench
