#include "bench/device/copy_timing.h"

#include <chrono>
#include <cstring>
#include <vector>

namespace nbrbench {

namespace {

using Clock = std::chrono::steady_clock;

double micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

}  // namespace

double copy_gbps(std::size_t bytes, double us) {
  return us > 0 ? static_cast<double>(bytes) / (us * 1e3) : 0.0;
}

std::string time_copies(const nbrcoll_device_backend& g, void* dst, const void* src, const unsigned char* expected,
                        std::size_t bytes, void* stream, int warmup, int reps, CopyTiming& out) {
  auto failed = [&](const char* what) { return std::string(what) + " failed: " + g.last_error(); };
  // Correctness first: the kernel's bytes must match.
  std::vector<unsigned char> back(bytes);
  if (g.copy_async(dst, src, bytes, stream) != 0) return failed("copy_async");
  if (g.stream_sync(stream) != 0) return failed("stream_sync");
  if (g.copy_to_host_sync(back.data(), dst, bytes) != 0) return failed("copy_to_host_sync");
  if (bytes > 0 && std::memcmp(back.data(), expected, bytes) != 0)
    return "the kernel's copy of " + std::to_string(bytes) + " bytes is wrong";
  std::vector<double> kern, rt;
  for (int r = -warmup; r < reps; ++r) {
    const auto t0 = Clock::now();
    if (g.copy_async(dst, src, bytes, stream) != 0) return failed("copy_async");
    if (g.stream_sync(stream) != 0) return failed("stream_sync");
    const auto t1 = Clock::now();
    if (g.runtime_copy_sync(dst, src, bytes) != 0) return failed("runtime_copy_sync");
    const auto t2 = Clock::now();
    if (r >= 0) {
      kern.push_back(micros(t0, t1));
      rt.push_back(micros(t1, t2));
    }
  }
  out.bytes = bytes;
  out.kernel_us = summarize(kern);
  out.runtime_us = summarize(rt);
  return "";
}

}  // namespace nbrbench
