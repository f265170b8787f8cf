// One size of the device backend's copy kernel (copy_async + stream_sync)
// against the GPU runtime's own device-to-device copy (runtime_copy_sync):
// the same buffers, interleaved repetitions after a warm-up, through the
// plugin's C ABI only. Shared by nbrcoll-copy-bench and nbrcoll-selftest.
#pragma once

#include <cstddef>
#include <string>

#include "bench/core/stats.h"
#include "transport/device/backend_abi.h"

namespace nbrbench {

struct CopyTiming {
  std::size_t bytes = 0;
  Summary kernel_us;   // the copy kernel
  Summary runtime_us;  // cudaMemcpyAsync / hipMemcpyAsync device to device
  // runtime median / kernel median: above 1 the kernel is faster.
  [[nodiscard]] double ratio() const { return kernel_us.median > 0 ? runtime_us.median / kernel_us.median : 0.0; }
};

// `dst` and `src`: device allocations of at least `bytes`; the kernel's copy is
// checked first (its bytes read back against `expected`, the first `bytes` of
// what src holds). Returns "" or what failed (a call, or wrong bytes).
std::string time_copies(const nbrcoll_device_backend& g, void* dst, const void* src, const unsigned char* expected,
                        std::size_t bytes, void* stream, int warmup, int reps, CopyTiming& out);

// GB/s = bytes copied / time (each byte read and written once).
double copy_gbps(std::size_t bytes, double us);

}  // namespace nbrbench
