#include "config.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "locality.h"
#include "log.h"

namespace nbrcoll {

const char* algo_name(Algo a) {
  switch (a) {
    case Algo::kAuto:
      return "auto";
    case Algo::kLeader:
      return "leader";
    case Algo::kLinear:
      return "linear";
    case Algo::kNative:
      return "native";
  }
  return "?";
}

std::optional<Algo> parse_algo(const std::string& s) {
  for (Algo a : {Algo::kAuto, Algo::kLeader, Algo::kLinear, Algo::kNative}) {
    if (s == algo_name(a)) return a;
  }
  return std::nullopt;
}

namespace {

// Byte sizes: a plain integer with an optional K, M or G suffix (powers of 1024).
std::optional<std::size_t> parse_size(const std::string& s) {
  if (s.empty() || s[0] == '-') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str()) return std::nullopt;
  unsigned long long mult = 1;
  const std::string rest(end);
  if (rest == "K" || rest == "k" || rest == "KiB")
    mult = 1ULL << 10;
  else if (rest == "M" || rest == "m" || rest == "MiB")
    mult = 1ULL << 20;
  else if (rest == "G" || rest == "g" || rest == "GiB")
    mult = 1ULL << 30;
  else if (!rest.empty())
    return std::nullopt;
  if (v > std::numeric_limits<unsigned long long>::max() / mult) return std::nullopt;
  return static_cast<std::size_t>(v * mult);
}

std::optional<int> parse_int(const std::string& s, int lo, int hi) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0' || v < lo || v > hi) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<LogLevel> parse_level(const std::string& s) {
  if (s == "none" || s == "0") return LogLevel::kNone;
  if (s == "warn" || s == "1") return LogLevel::kWarn;
  if (s == "info" || s == "2") return LogLevel::kInfo;
  if (s == "trace" || s == "3") return LogLevel::kTrace;
  return std::nullopt;
}

std::optional<bool> parse_bool(const std::string& s) {
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
    if (auto a = parse_algo(*v))
      c.algo = *a;
    else
      bad(warnings, "NBRCOLL_ALGO", *v, "expected auto|leader|linear|native; using auto");
  }
  if (auto v = env("NBRCOLL_THRESHOLD")) {
    if (auto n = parse_size(*v))
      c.threshold = *n;
    else
      bad(warnings, "NBRCOLL_THRESHOLD", *v, "expected bytes, e.g. 262144 or 256K; using 256K");
  }
  if (auto v = env("NBRCOLL_TOPO")) {
    if (!v->empty())
      c.topo = *v;
    else
      bad(warnings, "NBRCOLL_TOPO", *v, "empty; using auto");
  }
  if (auto v = env("NBRCOLL_RANKS_PER_NODE")) {
    if (auto n = parse_int(*v, 0, 1 << 20))
      c.ranks_per_node = *n;
    else
      bad(warnings, "NBRCOLL_RANKS_PER_NODE", *v, "expected a positive integer; using the real nodes");
  }
  if (auto v = env("NBRCOLL_WATCHDOG")) {
    char* end = nullptr;
    const double s = std::strtod(v->c_str(), &end);
    if (!v->empty() && end != nullptr && *end == '\0' && s >= 0 && s < 1e9)
      c.watchdog = s;
    else
      bad(warnings, "NBRCOLL_WATCHDOG", *v, "expected seconds, e.g. 30; watchdog off");
  }
  if (auto v = env("NBRCOLL_DEBUG")) {
    if (auto l = parse_level(*v))
      c.debug = *l;
    else
      bad(warnings, "NBRCOLL_DEBUG", *v, "expected none|warn|info|trace; using warn");
  }
  if (auto v = env("NBRCOLL_DISABLE")) {
    if (auto b = v->empty() ? std::optional<bool>(false) : parse_bool(*v))
      c.disable = *b;
    else
      bad(warnings, "NBRCOLL_DISABLE", *v, "expected 0 or 1; using 0");
  }
  if (auto v = env("NBRCOLL_DEVICE_MAP")) {
    std::vector<int> map;
    const std::string error = topo::parse_device_map(*v, map);
    if (error.empty())
      c.device_map = map;
    else
      bad(warnings, "NBRCOLL_DEVICE_MAP", *v, (error + "; ignoring").c_str());
  }
  if (auto v = env("NBRCOLL_DEVICE_BACKEND")) c.device_backend = *v;
  if (auto v = env("NBRCOLL_DEVICE_IPC")) {
    if (auto b = parse_bool(*v))
      c.device_ipc = *b;
    else
      bad(warnings, "NBRCOLL_DEVICE_IPC", *v, "expected 0 or 1; using 1");
  }
  if (auto v = env("NBRCOLL_GPU_AWARE")) {
    if (*v == "auto")
      c.gpu_aware.reset();
    else if (auto b = parse_bool(*v))
      c.gpu_aware = *b;
    else
      bad(warnings, "NBRCOLL_GPU_AWARE", *v, "expected auto, 0 or 1; using auto");
  }
  return c;
}

const Config& config() {
  static const Config parsed = [] {
    std::vector<std::string> warnings;
    Config c = parse_config(
        [](const char* name) -> std::optional<std::string> {
          const char* v = std::getenv(name);
          if (v == nullptr) return std::nullopt;
          return std::string(v);
        },
        warnings);
    set_log_level(c.debug);
    for (const auto& w : warnings) log(LogLevel::kWarn, "%s", w.c_str());
    return c;
  }();
  return parsed;
}

namespace {
// -1: no override; else the Algo value.
std::atomic<int> g_override{-1};
}  // namespace

void set_algo_override(std::optional<Algo> algo) {
  g_override.store(algo ? static_cast<int>(*algo) : -1);
}

Algo effective_algo() {
  const int o = g_override.load();
  return o >= 0 ? static_cast<Algo>(o) : config().algo;
}

}  // namespace nbrcoll
