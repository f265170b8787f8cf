// A cheap clock for sums of short intervals (the run report's time inside
// nbrcoll's calls): the CPU's time-stamp counter on x86-64, about 7 ns a
// read against about 30 ns for steady_clock through the vDSO, which on a
// 1 KiB call of a few microseconds is a percent; steady_clock's nanoseconds
// elsewhere. TickRate turns a sum of ticks into nanoseconds with the rate
// seen between its start and the conversion (x86-64 CPUs of the last decade
// count at a constant rate: the invariant TSC).
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace nbrcoll {

inline std::uint64_t ticks_now() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
#endif
}

class TickRate {
 public:
  void start() {
    ticks_ = ticks_now();
    steady_ = std::chrono::steady_clock::now();
  }
  // `ticks` in nanoseconds at the rate since start() (1 where ticks are ns).
  [[nodiscard]] std::uint64_t ns(std::uint64_t ticks) const {
#if defined(__x86_64__)
    const std::uint64_t elapsed_ticks = ticks_now() - ticks_;
    const auto elapsed_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - steady_).count();
    if (elapsed_ticks == 0) return 0;
    return static_cast<std::uint64_t>(static_cast<double>(ticks) * elapsed_ns / static_cast<double>(elapsed_ticks));
#else
    return ticks;
#endif
  }

 private:
  std::uint64_t ticks_ = 0;
  std::chrono::steady_clock::time_point steady_{};
};

}  // namespace nbrcoll
