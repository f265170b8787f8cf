// nbrcoll-bench's work between MPI_Init and MPI_Finalize, callable from
// another MPI program (nbrcoll-selftest runs it on device buffers).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "bench/core/report.h"

namespace nbrbench {

// Parses `args` (nbrcoll-bench's options, without the program name), runs
// the benchmark and prints its tables on `out` (rank 0). Returns 0, 1 when
// validation failed, 2 for bad input (message and usage on stderr, rank 0).
// A device failure on one rank aborts the job (MPI_Abort). Collective over
// MPI_COMM_WORLD. `rows`, where given, gets the timing rows (every rank).
int run_bench(const std::vector<std::string>& args, std::ostream& out, std::vector<Row>* rows = nullptr);

}  // namespace nbrbench
