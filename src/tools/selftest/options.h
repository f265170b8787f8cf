// nbrcoll-selftest's command line. Pure parsing: no MPI.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace selftest {

struct Options {
  std::string device;                       // cuda | hip | fake
  std::string plugin;                       // --plugin PATH; empty: found by name (find_plugin)
  std::string report = "nbrcoll-selftest";  // PREFIX of PREFIX.md, PREFIX.csv, PREFIX-bench.csv; "none": no files
  bool quick = false;                       // the CI's short run: fewer sizes and repetitions
  std::vector<std::uint64_t> copy_sizes;    // kernel.bandwidth
  std::string bench_sizes;                  // nbrcoll-bench --sizes
  std::set<std::string> skip;               // check groups not to run
  bool help = false;
  bool version = false;
};

// Throws std::invalid_argument with a message for the user.
Options parse_options(const std::vector<std::string>& args);
const char* usage();

// The check groups --skip takes.
const std::vector<std::string>& check_groups();

// The plugin file for `device`: `explicit_path` if given, else
// libnbrcoll-<device>.so (the fake: libnbrcoll-fake-device.so) in the lib/
// (or lib/fake_gpu/) folder beside this program's bin/, else the bare name
// for the loader's search path.
std::string find_plugin(const std::string& device, const std::string& explicit_path, const std::string& exe_dir);

}  // namespace selftest
