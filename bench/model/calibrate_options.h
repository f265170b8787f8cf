// Command line of nbrcoll-calibrate. Pure parsing: no MPI, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nbrcalib {

struct CalibrateOptions {
  std::string out;                        // machine file to write (also printed on stdout)
  std::string name = "calibrated";        // the machine's name in the file
  std::optional<double> cores;            // override: CPU cores per node available to the ranks
  std::uint64_t large = 4 * 1024 * 1024;  // bytes of the rate and NIC messages
  int small_iters = 1000;                 // round trips of the small message per class
  int reps = 7;                           // timed large ping-pongs / NIC rounds / copies
  std::uint64_t copy_bytes = 32 * 1024 * 1024;
  bool help = false;
  bool version = false;
};

// --quick: what a smoke test needs (fewer, smaller repetitions).
// Throws std::invalid_argument with a one-line message.
CalibrateOptions parse_calibrate_options(const std::vector<std::string>& args);
const char* calibrate_usage();

}  // namespace nbrcalib
