#include "support/log.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace nbrcoll {

namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kWarn)};

const char* level_name(LogLevel l) {
  switch (l) {
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kNone:
      break;
  }
  return "";
}

// -2: not known yet.
std::atomic<int> g_rank{-2};

// The world rank MPI_Init gave (set_log_rank), else the launcher's.
int world_rank() {
  const int known = g_rank.load(std::memory_order_relaxed);
  return known != -2 ? known : launcher_rank();
}
}  // namespace

void set_log_rank(int world_rank) {
  g_rank.store(world_rank, std::memory_order_relaxed);
}

void set_log_level(LogLevel level) {
  g_level.store(static_cast<int>(level));
}

bool log_enabled(LogLevel level) {
  return level != LogLevel::kNone && static_cast<int>(level) <= g_level.load();
}

void log(LogLevel level, const char* fmt, ...) {
  if (!log_enabled(level)) return;
  char body[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  // One fprintf per line so lines of different ranks do not interleave.
  std::fprintf(stderr, "[nbrcoll %d] %s: %s\n", world_rank(), level_name(level), body);
}

}  // namespace nbrcoll
