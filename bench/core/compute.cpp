#include "bench/core/compute.h"

#include <algorithm>
#include <chrono>
#include <thread>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace nbrbench {

namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

}  // namespace

double compute_for(ComputeKind kind, double us) {
  const Clock::time_point t0 = Clock::now();
  const auto until = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(us));
  if (kind == ComputeKind::kIdle) {
#if defined(__linux__)
    // Linux wakes a sleeper up to 50 us late by default (timer slack): 1 us.
    static const bool slack = prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL) == 0;
    (void)slack;
#endif
    std::this_thread::sleep_until(until);
    return micros_since(t0);
  }
  volatile double sink = 1.0;
  while (Clock::now() < until) {
    double x = sink;
    for (int i = 0; i < 64; ++i) x = x * 1.0000001 + 1e-9;
    sink = x;
  }
  return micros_since(t0);
}

double overlap_percent(double pure_us, double compute_us, double overall_us) {
  if (!(pure_us > 0.0)) return 0.0;
  return std::clamp(100.0 * (1.0 - (overall_us - compute_us) / pure_us), 0.0, 100.0);
}

}  // namespace nbrbench
