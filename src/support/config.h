// Configuration from the environment (NBRCOLL_*), parsed once.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algos/variant.h"

namespace nbrcoll {

// NBRCOLL_ALGO: the cost model's variant per block (auto), the MPI's own
// collective (native), or one variant (algos/variant.h) for every block.
struct Algo {
  enum class Kind : std::uint8_t { kAuto, kNative, kFixed };
  Kind kind = Kind::kAuto;
  algos::Variant variant = algos::Variant::kLinear;  // kFixed only
  static constexpr Algo automatic() { return {}; }
  static constexpr Algo native() { return {Kind::kNative, algos::Variant::kLinear}; }
  static constexpr Algo fixed(algos::Variant v) { return {Kind::kFixed, v}; }
  [[nodiscard]] constexpr bool is(algos::Variant v) const { return kind == Kind::kFixed && variant == v; }
  friend constexpr bool operator==(const Algo&, const Algo&) = default;
};
enum class LogLevel { kNone, kWarn, kInfo, kTrace };
// NBRCOLL_REPORT: where the run report goes at MPI_Finalize (src/report/).
enum class ReportTo : std::uint8_t { kOff, kStderr, kFile };
// NBRCOLL_PROGRESS: what advances nonblocking and persistent calls between
// their start and their completion (call/progress_thread.h): the
// application's MPI calls that nbrcoll intercepts (kCalls), every MPI call
// of the application that waits or tests, through the MPI's progress loop
// (kMpi, the default; kCalls where the MPI has no hook), or also a thread
// of nbrcoll's where each rank of the host has a core (kThread), or even
// where they share cores (kThreadAlways).
enum class ProgressMode : std::uint8_t { kCalls, kThread, kThreadAlways, kMpi };

struct Config {
  Algo algo = Algo::automatic();
  // Bytes per block. Set: auto moves smaller blocks by linear and larger
  // ones by leader (no cost model). Unset: only device calls use it.
  std::size_t threshold = std::size_t{32} * 1024;
  bool threshold_set = false;
  // The cost model's machine: a built-in name or a machine file; empty:
  // the built-in named like the topology model, else "generic".
  std::string machine;
  std::string topo = "auto";  // auto | flat | model name | file path
  int ranks_per_node = 0;     // >0: emulated nodes of world rank / k; 0: hostname and boot id
  double watchdog = 0;        // seconds: report calls that run longer (0: off)
  // NBRCOLL_SHORT_GRAPHS: the blocking calls a graph across nodes runs
  // linear before it plans (state/late_plans.h; the least over all
  // processes); 0: graphs plan at creation.
  int short_graph_calls = 8;
  // NBRCOLL_TUNE: auto's blocking calls across nodes try the variants the
  // cost model predicts within this factor of the fastest and keep the
  // fastest measured (algos/tuner.h); 0: off, the model alone chooses.
  double tune_factor = 2.0;
  LogLevel debug = LogLevel::kWarn;
  bool disable = false;           // NBRCOLL_DISABLE=1: everything to PMPI
  std::vector<int> device_map;    // NBRCOLL_DEVICE_MAP: local rank -> device
  std::string device_backend;     // NBRCOLL_DEVICE_BACKEND: plugin path, "none", or empty (find it)
  bool device_ipc = true;         // NBRCOLL_DEVICE_IPC=0: device fragments on one node go by MPI too
  bool shared_comm = true;        // NBRCOLL_SHARED_COMM=0: a private communicator per graph (shared_comm.h)
  std::optional<bool> gpu_aware;  // NBRCOLL_GPU_AWARE=0|1; unset: ask the MPI (MPIX_Query_*_support)
  // NBRCOLL_REPORT: 1 (stderr) or a file path, which world rank 0 writes
  // (report_path); 0 or unset: off.
  ReportTo report = ReportTo::kOff;
  std::string report_path;
  ProgressMode progress = ProgressMode::kMpi;
  bool progress_set = false;      // NBRCOLL_PROGRESS given: a mode this MPI lacks is said at warn
  int progress_interval_us = 20;  // NBRCOLL_PROGRESS=thread:US: the thread's pause between polls
};

// Parse from a getenv-like lookup. Bad values leave the default and add one
// warning line each to `warnings`. Pure: used directly by the unit tests.
using EnvLookup = std::function<std::optional<std::string>(const char*)>;
Config parse_config(const EnvLookup& env, std::vector<std::string>& warnings);

// The process's configuration, parsed from the real environment on first use.
// Warnings (bad values, unknown NBRCOLL_* names) go to the log once, on world
// rank 0 only (read from the launcher's environment: OMPI_COMM_WORLD_RANK,
// PMI_RANK, PMIX_RANK; a process without one counts as rank 0).
const Config& config();

// World rank from the launcher's environment (OMPI_COMM_WORLD_RANK, PMI_RANK,
// PMIX_RANK), usable before MPI_Init; -1 when no launcher says.
int launcher_rank();
// Ranks of this job on this host from the launcher's environment
// (OMPI_COMM_WORLD_LOCAL_SIZE, MPI_LOCALNRANKS, PMI_LOCAL_SIZE), usable
// before MPI_Init; 0 when no launcher says.
int launcher_local_size();

// Every NBRCOLL_* variable the library reads: nbrcoll-info lists them, and a
// name outside this list (and outside the tests' and scripts' own names) is
// warned about with the closest known one.
struct EnvVarInfo {
  const char* name;
  const char* values;
  const char* default_value;
  const char* meaning;
};
const std::vector<EnvVarInfo>& env_vars();
// parse_config on the real environment, plus unknown_env_warnings on its
// names. No logging (config() logs; nbrcoll-info prints).
Config parse_environment(std::vector<std::string>& warnings);
// One warning per NBRCOLL_* name in `names` that nbrcoll does not know:
// "unknown variable NBRCOLL_ALOG (did you mean NBRCOLL_ALGO?)". Pure.
std::vector<std::string> unknown_env_warnings(const std::vector<std::string>& names);

// Process-wide override of NBRCOLL_ALGO, for benchmarks that time several
// algorithms in one run. Every rank must set the same value between calls.
void set_algo_override(std::optional<Algo> algo);
Algo effective_algo();

const char* algo_name(Algo a);
std::optional<Algo> parse_algo(const std::string& s);

}  // namespace nbrcoll
