/* A stand-in for the CUDA driver (soname libcuda.so.1) for machines without a
 * GPU: cuPointerGetAttribute reports the ranges marked with
 * fake_cuda_mark_device as device memory and everything else as unregistered
 * host memory, and counts the queries. Lets the tests drive nbrcoll's
 * device-buffer detection and fallback. */
#include <stddef.h>
#include <stdint.h>

enum { kMaxRanges = 16, kMemoryTypeAttribute = 2, kDeviceMemory = 2, kInvalidValue = 1 };

static uintptr_t begin_[kMaxRanges];
static uintptr_t end_[kMaxRanges];
static int ranges_;
static long queries_;

void fake_cuda_mark_device(const void* p, size_t bytes) {
  if (ranges_ == kMaxRanges) return;
  begin_[ranges_] = (uintptr_t)p;
  end_[ranges_] = (uintptr_t)p + bytes;
  ++ranges_;
}

void fake_cuda_clear(void) {
  ranges_ = 0;
}

long fake_cuda_queries(void) {
  return queries_;
}

int cuPointerGetAttribute(void* data, int attribute, unsigned long long ptr) {
  ++queries_;
  if (attribute != kMemoryTypeAttribute) return kInvalidValue;
  for (int i = 0; i < ranges_; ++i) {
    if (ptr >= begin_[i] && ptr < end_[i]) {
      *(unsigned*)data = kDeviceMemory;
      return 0;
    }
  }
  return kInvalidValue;
}
