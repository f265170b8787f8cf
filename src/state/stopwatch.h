// The wall-clock and CPU time of the steps of a graph's set-up (at
// creation, graph_setup.cpp, or at a late planning, late_plans.cpp).
#pragma once

#include <time.h>

#include <chrono>

#include "support/log.h"

namespace nbrcoll {

// One step on this rank: wall-clock time and this thread's CPU time (read
// at NBRCOLL_DEBUG=trace only, else 0), in microseconds. With more ranks
// than cores the two differ most: a step's wall time then includes the
// waits for peers and the other ranks' CPU.
struct StepTime {
  double wall = 0;
  double cpu = 0;
};

// Laps from its construction; the thread's CPU clock is a system call, so
// it is read only at NBRCOLL_DEBUG=trace, not for every creation.
class Stopwatch {
 public:
  StepTime lap() {
    const StepTime now = read();
    const StepTime step{now.wall - last_.wall, now.cpu - last_.cpu};
    last_ = now;
    return step;
  }
  [[nodiscard]] StepTime since_start() const {
    const StepTime now = read();
    return {now.wall - start_.wall, now.cpu - start_.cpu};
  }

 private:
  [[nodiscard]] StepTime read() const {
    timespec cpu{};
    if (with_cpu_) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    const double wall =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return {wall, static_cast<double>(cpu.tv_sec) * 1e6 + static_cast<double>(cpu.tv_nsec) / 1e3};
  }
  bool with_cpu_ = log_enabled(LogLevel::kTrace);
  StepTime start_ = read();
  StepTime last_ = start_;
};

}  // namespace nbrcoll
