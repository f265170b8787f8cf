#include "support/config.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "support/log.h"
#include "support/size_parse.h"
#include "topo/locality.h"

namespace nbrcoll {

namespace {
// Keywords are case-insensitive: "LEADER", "Info", "TRUE".
std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

const char* algo_name(Algo a) {
  switch (a.kind) {
    case Algo::Kind::kAuto:
      return "auto";
    case Algo::Kind::kNative:
      return "native";
    case Algo::Kind::kFixed:
      return algos::variant_name(a.variant);
  }
  return "?";
}

std::optional<Algo> parse_algo(const std::string& value) {
  const std::string s = lower(value);
  if (s == "auto") return Algo::automatic();
  if (s == "native") return Algo::native();
  for (const algos::Variant v : algos::kAllVariants) {
    if (s == algos::variant_name(v)) return Algo::fixed(v);
  }
  return std::nullopt;
}

namespace {

std::optional<std::size_t> parse_size(const std::string& s) {
  const auto v = parse_byte_size(s);
  if (!v || *v > std::numeric_limits<std::size_t>::max()) return std::nullopt;
  return static_cast<std::size_t>(*v);
}

std::optional<int> parse_int(const std::string& s, int lo, int hi) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v < lo || v > hi) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<LogLevel> parse_level(const std::string& value) {
  const std::string s = lower(value);
  if (s == "none" || s == "0") return LogLevel::kNone;
  if (s == "warn" || s == "1") return LogLevel::kWarn;
  if (s == "info" || s == "2") return LogLevel::kInfo;
  if (s == "trace" || s == "3") return LogLevel::kTrace;
  return std::nullopt;
}

std::optional<bool> parse_bool(const std::string& value) {
  const std::string s = lower(value);
  if (s == "1" || s == "yes" || s == "true") return true;
  if (s == "0" || s == "no" || s == "false") return false;
  return std::nullopt;
}

void bad(std::vector<std::string>& warnings, const char* name, const std::string& value, const char* fallback) {
  warnings.push_back(std::string("ignoring ") + name + "='" + value + "' (" + fallback + ")");
}

}  // namespace

Config parse_config(const EnvLookup& env, std::vector<std::string>& warnings) {
  Config c;
  if (auto v = env("NBRCOLL_ALGO")) {
    if (auto a = parse_algo(*v)) {
      c.algo = *a;
    } else {
      bad(warnings, "NBRCOLL_ALGO", *v, "expected auto|leader|linear|aggregated|native; using auto");
    }
  }
  if (auto v = env("NBRCOLL_THRESHOLD")) {
    if (auto n = parse_size(*v)) {
      c.threshold = *n;
      c.threshold_set = true;
    } else {
      bad(warnings, "NBRCOLL_THRESHOLD", *v, "expected bytes, e.g. 32768 or 32K; using the cost model");
    }
  }
  if (auto v = env("NBRCOLL_MACHINE")) {
    if (!v->empty()) {
      c.machine = *v;
    } else {
      bad(warnings, "NBRCOLL_MACHINE", *v, "empty; using the default machine");
    }
  }
  if (auto v = env("NBRCOLL_TOPO")) {
    if (!v->empty()) {
      c.topo = *v;
    } else {
      bad(warnings, "NBRCOLL_TOPO", *v, "empty; using auto");
    }
  }
  if (auto v = env("NBRCOLL_RANKS_PER_NODE")) {
    if (auto n = parse_int(*v, 0, 1 << 20)) {
      c.ranks_per_node = *n;
    } else {
      bad(warnings, "NBRCOLL_RANKS_PER_NODE", *v, "expected a positive integer; using the real nodes");
    }
  }
  if (auto v = env("NBRCOLL_SHORT_GRAPHS")) {
    if (auto n = parse_int(*v, 0, 1 << 20)) {
      c.short_graph_calls = *n;
    } else {
      bad(warnings, "NBRCOLL_SHORT_GRAPHS", *v, "expected a count of calls, 0 to plan at creation; using 8");
    }
  }
  if (auto v = env("NBRCOLL_TUNE")) {
    char* end = nullptr;
    const double f = std::strtod(v->c_str(), &end);
    if (const auto on = parse_bool(*v)) {
      c.tune_factor = *on ? 2.0 : 0.0;
    } else if (!v->empty() && end != nullptr && *end == '\0' && f >= 1.0 && f <= 1e6) {
      c.tune_factor = f;
    } else {
      bad(warnings, "NBRCOLL_TUNE", *v, "expected 0, 1 or a factor of at least 1; using 2");
    }
  }
  if (auto v = env("NBRCOLL_WATCHDOG")) {
    char* end = nullptr;
    const double s = std::strtod(v->c_str(), &end);
    if (!v->empty() && end != nullptr && *end == '\0' && s >= 0 && s < 1e9) {
      c.watchdog = s;
    } else {
      bad(warnings, "NBRCOLL_WATCHDOG", *v, "expected seconds, e.g. 30; watchdog off");
    }
  }
  if (auto v = env("NBRCOLL_DEBUG")) {
    if (auto l = parse_level(*v)) {
      c.debug = *l;
    } else {
      bad(warnings, "NBRCOLL_DEBUG", *v, "expected none|warn|info|trace; using warn");
    }
  }
  if (auto v = env("NBRCOLL_DISABLE")) {
    if (auto b = v->empty() ? std::optional<bool>(false) : parse_bool(*v)) {
      c.disable = *b;
    } else {
      bad(warnings, "NBRCOLL_DISABLE", *v, "expected 0 or 1; using 0");
    }
  }
  if (auto v = env("NBRCOLL_DEVICE_MAP")) {
    std::vector<int> map;
    const std::string error = topo::parse_device_map(*v, map);
    if (error.empty()) {
      c.device_map = map;
    } else {
      bad(warnings, "NBRCOLL_DEVICE_MAP", *v, (error + "; ignoring").c_str());
    }
  }
  if (auto v = env("NBRCOLL_DEVICE_BACKEND")) c.device_backend = *v;
  if (auto v = env("NBRCOLL_DEVICE_IPC")) {
    if (auto b = parse_bool(*v)) {
      c.device_ipc = *b;
    } else {
      bad(warnings, "NBRCOLL_DEVICE_IPC", *v, "expected 0 or 1; using 1");
    }
  }
  if (auto v = env("NBRCOLL_SHARED_COMM")) {
    if (auto b = parse_bool(*v)) {
      c.shared_comm = *b;
    } else {
      bad(warnings, "NBRCOLL_SHARED_COMM", *v, "expected 0 or 1; using 1");
    }
  }
  if (auto v = env("NBRCOLL_GPU_AWARE")) {
    if (lower(*v) == "auto") {
      c.gpu_aware.reset();
    } else if (auto b = parse_bool(*v)) {
      c.gpu_aware = *b;
    } else {
      bad(warnings, "NBRCOLL_GPU_AWARE", *v, "expected auto, 0 or 1; using auto");
    }
  }
  if (auto v = env("NBRCOLL_REPORT")) {
    // Anything but a yes or no word is a file path.
    if (const std::optional<bool> b = v->empty() ? std::optional<bool>(false) : parse_bool(*v)) {
      c.report = *b ? ReportTo::kStderr : ReportTo::kOff;
    } else {
      c.report = ReportTo::kFile;
      c.report_path = *v;
    }
  }
  if (auto v = env("NBRCOLL_PROGRESS")) {
    const std::string mode = lower(*v);
    const std::size_t colon = mode.find(':');
    const std::string head = mode.substr(0, colon);
    const std::string interval = colon == std::string::npos ? "" : mode.substr(colon + 1);
    int us = c.progress_interval_us;
    bool ok = head == "calls" || head == "thread" || head == "thread-always" || head == "mpi";
    if (ok && colon != std::string::npos) {
      std::size_t used = 0;
      try {
        us = std::stoi(interval, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      ok = head.starts_with("thread") && !interval.empty() && used == interval.size() && us >= 0 && us <= 1000000;
    }
    if (ok) {
      c.progress = head == "thread"          ? ProgressMode::kThread
                   : head == "thread-always" ? ProgressMode::kThreadAlways
                   : head == "mpi"           ? ProgressMode::kMpi
                                             : ProgressMode::kCalls;
      c.progress_interval_us = us;
      c.progress_set = true;
    } else {
      bad(warnings, "NBRCOLL_PROGRESS", *v,
          "expected calls, mpi, thread, thread-always, or either thread with :MICROSECONDS; using mpi");
    }
  }
  return c;
}

const std::vector<EnvVarInfo>& env_vars() {
  static const std::vector<EnvVarInfo> vars = {
      {"NBRCOLL_ALGO", "auto|leader|linear|aggregated|native", "auto",
       "native = the MPI's own; linear = one message per edge; leader = topology-aware plan; aggregated = one "
       "bundle per node pair (node-aware 3-step); auto = per block, the cheapest by the cost model"},
      {"NBRCOLL_THRESHOLD", "bytes (32768, 32K, 32KB, 32KiB, 1M)", "unset (32K for device buffers)",
       "set: auto takes linear below it and leader from it, per block, instead of the cost model"},
      {"NBRCOLL_MACHINE", "a built-in machine|a machine file", "the topology model's, else generic",
       "the cost model's per-link latency and bandwidth (nbrcoll-calibrate writes a file)"},
      {"NBRCOLL_TOPO", "auto|flat|flat:N|rocm-smi|hwloc|a model|a file", "auto",
       "the node topology (ROCm SMI, else hwloc, else flat)"},
      {"NBRCOLL_RANKS_PER_NODE", "integer", "0 (real nodes)", "emulate nodes: world ranks [0,k) are node 0, and so on"},
      {"NBRCOLL_DEVICE_MAP", "list, e.g. 3,2,1,0", "local rank mod devices", "device (GCD) of each local rank"},
      {"NBRCOLL_SHORT_GRAPHS", "calls", "8",
       "auto across nodes: a graph of every process runs this many blocking calls linear, set up without node "
       "lists, planners or agreement, and plans at the next (the least over all processes); 0: plan at creation"},
      {"NBRCOLL_TUNE", "0|1|a factor >= 1", "1 (factor 2)",
       "auto's blocking calls across nodes that repeat: try the variants predicted within the factor of the "
       "fastest, time them, keep the fastest (one agreement per size); 0: the cost model alone. The same in every "
       "process"},
      {"NBRCOLL_WATCHDOG", "seconds", "0 (off)",
       "report (stderr, per rank) nbrcoll calls that run longer than this: the call and its peers"},
      {"NBRCOLL_DEBUG", "none|warn|info|trace", "warn", "diagnostics on stderr, one line each"},
      {"NBRCOLL_DISABLE", "0|1", "0", "1: everything goes to PMPI"},
      {"NBRCOLL_DEVICE_BACKEND", "a plugin path|none", "found next to libnbrcoll",
       "the device backend plugin; none: device buffers go to PMPI"},
      {"NBRCOLL_DEVICE_IPC", "0|1", "1", "device fragments inside a node by IPC copy kernels; 0: by MPI"},
      {"NBRCOLL_SHARED_COMM", "0|1", "1",
       "1: every graph's messages travel on one duplicate of MPI_COMM_WORLD made in MPI_Init; 0: a private "
       "communicator per graph (slower graph creation)"},
      {"NBRCOLL_GPU_AWARE", "auto|0|1", "auto",
       "does the MPI take device buffers? auto asks the MPI (MPIX_Query_*_support)"},
      {"NBRCOLL_REPORT", "0|1|a file path", "0 (off)",
       "at MPI_Finalize, one summary of the run gathered to world rank 0 (calls per kind and plan, hand-offs and "
       "why, bytes per link class against one message per edge, time, graph set-ups, peak RSS): 1 to stderr, "
       "or into the file"},
      {"NBRCOLL_PROGRESS", "calls|mpi|thread|thread-always[:US]", "mpi",
       "what advances nonblocking and persistent calls between start and completion: calls: the application's MPI "
       "calls that nbrcoll intercepts; mpi: also every MPI call of the application that waits or tests (Open MPI's "
       "progress loop; auto's nonblocking allgathers then forward blocks from 64 KiB, smaller ones where timed "
       "faster; calls where the MPI has no "
       "such hook); or also a thread of nbrcoll's "
       "(MPI_THREAD_MULTIPLE asked of the MPI; the application still sees its "
       "own level), asleep while no call is in flight, polling every US microseconds (20) while one is; thread: "
       "only where the host's ranks have a core each, thread-always: even where they share cores"},
      {"NBRCOLL_ROCM_SMI_LIB", "a library path|none", "librocm_smi64.so[.N]",
       "the ROCm SMI library opened at run time; none: never"},
  };
  return vars;
}

namespace {

// Names that are not the library's but belong to nbrcoll's tests and scripts.
bool known_elsewhere(const std::string& name) {
  for (const char* prefix : {"NBRCOLL_TEST_", "NBRCOLL_FAKE_", "NBRCOLL_CLUSTER_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return name == "NBRCOLL_SANITIZE" || name == "NBRCOLL_MPI";
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> unknown_env_warnings(const std::vector<std::string>& names) {
  std::vector<std::string> warnings;
  for (const std::string& name : names) {
    if (name.rfind("NBRCOLL_", 0) != 0 || known_elsewhere(name)) continue;
    const EnvVarInfo* best = nullptr;
    std::size_t best_distance = 0;
    for (const EnvVarInfo& v : env_vars()) {
      const std::size_t d = edit_distance(name, v.name);
      if (d == 0) {
        best = nullptr;
        break;
      }
      if (best == nullptr || d < best_distance) {
        best = &v;
        best_distance = d;
      }
    }
    if (best != nullptr) warnings.push_back("unknown variable " + name + " (did you mean " + best->name + "?)");
  }
  return warnings;
}

int launcher_rank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const char* v = std::getenv(var)) return std::atoi(v);
  }
  return -1;
}

int launcher_local_size() {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"}) {
    if (const char* v = std::getenv(var)) return std::max(std::atoi(v), 0);
  }
  return 0;
}

Config parse_environment(std::vector<std::string>& warnings) {
  Config c = parse_config(
      [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name);
        if (v == nullptr) return std::nullopt;
        return std::string(v);
      },
      warnings);
  std::vector<std::string> names;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    names.push_back(entry.substr(0, entry.find('=')));
  }
  for (auto& w : unknown_env_warnings(names)) warnings.push_back(std::move(w));
  return c;
}

const Config& config() {
  static const Config parsed = [] {
    std::vector<std::string> warnings;
    Config c = parse_environment(warnings);
    set_log_level(c.debug);
    if (launcher_rank() <= 0) {
      for (const auto& w : warnings) log(LogLevel::kWarn, "%s", w.c_str());
    }
    return c;
  }();
  return parsed;
}

namespace {
// -1: no override; else kind * kVariantCount + variant.
std::atomic<int> g_override{-1};
}  // namespace

void set_algo_override(std::optional<Algo> algo) {
  g_override.store(algo ? static_cast<int>(algo->kind) * algos::kVariantCount + static_cast<int>(algo->variant) : -1);
}

Algo effective_algo() {
  const int o = g_override.load();
  if (o < 0) return config().algo;
  return {static_cast<Algo::Kind>(o / algos::kVariantCount), static_cast<algos::Variant>(o % algos::kVariantCount)};
}

}  // namespace nbrcoll
