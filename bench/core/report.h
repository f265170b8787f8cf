// Output of nbrcoll-bench: the OSU-style tables on stdout and the CSV file.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "stats.h"

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
  std::optional<double> speedup;  // native median / this median
};

// Sets `speedup` of every row that has a "native" row with the same
// pattern, params and size.
void compute_speedups(std::vector<Row>& rows);

inline constexpr const char* kCsvHeader =
    "pattern,params,procs,nodes,size_bytes,algo,median_us,min_us,max_us,speedup_vs_native";
void write_csv_rows(std::ostream& out, const std::vector<Row>& rows);

// "# Size  Algo  Median(us) ..." with one line per row.
void print_timing_table(std::ostream& out, const std::vector<Row>& rows);

// Graph-creation time (milliseconds) per way of creating the communicator.
struct CreateRow {
  std::string what;  // "pmpi" or an algorithm name
  Summary ms;
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
