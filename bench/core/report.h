// Output of nbrcoll-bench: the OSU-style tables on stdout and the CSV file.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "bench/core/stats.h"

namespace nbrbench {

// One (configuration, size, algorithm) measurement; times in microseconds.
struct Row {
  std::string pattern;
  std::string params;
  int procs = 0;
  int nodes = 0;
  std::uint64_t size_bytes = 0;
  std::string algo;
  Summary us;
  std::optional<double> speedup;       // native median / this median
  std::string op;                      // "neighbor_allgather", "ineighbor_alltoallv", ... (core/exchange.h op_name)
  std::optional<double> predicted_us;  // nbrcoll's cost model for this call (algos/cost_model.h)
  std::optional<double> paired;        // median over rounds of native's time / this time (stats.h median_ratio)
  // Overlap rows (--compute; op ends in kComputeSuffix): `us` is start,
  // computation and wait together; the computation's median time (max over
  // ranks a round) and the share of the pure call's time hidden (compute.h).
  std::optional<double> compute_us;
  std::optional<double> overlap_pct;
  int iters = 0;  // timed calls behind the medians; 0: the run's (RunInfo::iters)
};

// The op of an overlap row: "ineighbor_allgather+compute".
inline constexpr const char* kComputeSuffix = "+compute";

// Sets `speedup` of every row that has a "native" row with the same
// pattern, params, op and size.
void compute_speedups(std::vector<Row>& rows);

// What one nbrcoll-bench run was made on: the same for all its rows, and
// written on each so that files of different runs can be merged and told
// apart (bench/plot.py never puts two MPIs on one line).
struct RunInfo {
  int iters = 0;                // timed calls per size and algorithm
  std::string node_kind;        // "emulated" (NBRCOLL_RANKS_PER_NODE) or "real"
  std::string topology;         // nbrcoll's node topology (its source)
  std::string mpi;              // "Open MPI", "MPICH"
  std::string mpi_version;      // "4.1.4"
  std::string nbrcoll_version;  // "0.1.0"
};

// MPI_Get_library_version's text -> {"Open MPI", "4.1.4"}, {"MPICH", "4.0.2"};
// the first line's words before the first version-like word, and that word.
std::pair<std::string, std::string> mpi_name_and_version(const std::string& library_version);

// The first ten columns are those of earlier versions, the first sixteen
// those of versions before `op`, the first seventeen those before
// `predicted_us`, the first nineteen those before the overlap columns
// (empty but on overlap rows); text fields are quoted.
inline constexpr const char* kCsvHeader =
    "pattern,params,procs,nodes,size_bytes,algo,median_us,min_us,max_us,speedup_vs_native,"
    "iters,node_kind,topology,mpi,mpi_version,nbrcoll_version,op,predicted_us,paired_vs_native,"
    "compute_us,overlap_pct";
void write_csv_rows(std::ostream& out, const std::vector<Row>& rows, const RunInfo& run);
// RFC 4180: in double quotes, a double quote inside doubled.
std::string csv_quote(const std::string& field);

// "# Size  Algo  Median(us) ..." with one line per row (overlap rows left
// out: print_overlap_table).
void print_timing_table(std::ostream& out, const std::vector<Row>& rows);

// The overlap rows, each beside its pure row (the same op without the
// suffix, size and algorithm): pure, computation and overall medians, the
// overlap, and the paired speed-up of the overall time. Nothing when no row
// has a computation.
void print_overlap_table(std::ostream& out, const std::string& compute, const std::vector<Row>& rows);

// The cost model against the measurement: per row with a prediction, the
// predicted and measured median times and the error (predicted / measured
// - 1); then per algorithm the median absolute error over the sizes.
void print_model_table(std::ostream& out, const std::string& machine, const std::vector<Row>& rows);

// Graph-creation time (milliseconds) per way of creating the communicator
// and per round: create and free, create + 2 calls + free (the many
// short-lived graphs of mesh set-up), create + 10 calls + free (what moves
// from creation to the first call).
struct CreateRow {
  std::string round;  // "create+free", "create+2 calls+free", ...
  std::string what;   // "pmpi (direct)" or "ALGO (nbrcoll)"
  Summary ms;
  std::optional<double> paired;  // median of per-repetition ratios pmpi / this
};
void print_create_table(std::ostream& out, const std::vector<CreateRow>& rows);

// Messages and bytes of one call, summed over ranks, per link class.
struct TrafficRow {
  std::string algo;
  std::vector<std::uint64_t> messages;  // one per class
  std::vector<std::uint64_t> bytes;
  std::string note;  // e.g. "no plan" when nbrcoll holds none
};
void print_traffic_table(std::ostream& out, std::uint64_t block_bytes, const std::vector<std::string>& classes,
                         const std::vector<TrafficRow>& rows, std::size_t network_class);

}  // namespace nbrbench
