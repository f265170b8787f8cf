// The copy kernel of both device backends (nvcc and hipcc compile this same
// file) and its host-side plan. It also compiles as plain C++, so the CPU
// tests run every thread's work exactly as the GPU would.
//
// Plan: copy single bytes until dst is 16-byte aligned (head), then 16-byte
// stores to the aligned middle, then single bytes (tail). How the middle is
// loaded depends on src's alignment at that point:
//   kSameAlignment  src is 16-byte aligned too: 16-byte loads;
//   kWordAligned    src is 4-byte aligned: four 4-byte loads;
//   kShifted        otherwise: five aligned 4-byte loads, funnel-shifted.
// kShifted reads the aligned word holding src's first middle byte, which
// starts up to 3 bytes before it but never before src's allocation (those
// are 4-byte aligned); it keeps at least 4 bytes for the tail, so it never
// reads past src + bytes. Overlapping src and dst are not supported (memcpy).
#pragma once

#include <stddef.h>
#include <stdint.h>

#if defined(__HIPCC__)
#include <hip/hip_runtime.h>  // uint4, blockIdx (nvcc includes its runtime by itself)
#endif

#if defined(__CUDACC__) || defined(__HIPCC__)
#define NBRCOLL_GPU_COMPILER 1
#define NBRCOLL_HD __host__ __device__
#else
#include <string.h>
#define NBRCOLL_HD
#endif

namespace nbrcoll_gpu {

#ifdef NBRCOLL_GPU_COMPILER
using Vec16 = uint4;
#else
struct alignas(16) Vec16 {
  uint32_t x, y, z, w;
};
#endif

enum CopyMode : unsigned { kSameAlignment = 0, kWordAligned = 1, kShifted = 2 };

struct CopyPlan {
  unsigned char* dst;
  const unsigned char* src;
  size_t bytes;
  size_t head;     // leading bytes copied one by one; then dst + head is 16-byte aligned
  size_t nvec;     // 16-byte stores after the head; the rest is the tail
  unsigned mode;   // CopyMode
  unsigned shift;  // kShifted: (src + head) mod 4, 1..3
};

constexpr unsigned kCopyThreads = 256;

inline CopyPlan plan_copy(void* dst, const void* src, size_t bytes) {
  CopyPlan p{};
  p.dst = static_cast<unsigned char*>(dst);
  p.src = static_cast<const unsigned char*>(src);
  p.bytes = bytes;
  p.head = (16 - (reinterpret_cast<uintptr_t>(dst) & 15)) & 15;
  if (p.head > bytes) p.head = bytes;
  const size_t rest = bytes - p.head;
  const uintptr_t s = reinterpret_cast<uintptr_t>(src) + p.head;
  if ((s & 15) == 0) {
    p.mode = kSameAlignment;
    p.nvec = rest / 16;
  } else if ((s & 3) == 0) {
    p.mode = kWordAligned;
    p.nvec = rest / 16;
  } else {
    p.mode = kShifted;
    p.shift = static_cast<unsigned>(s & 3);
    p.nvec = rest >= 4 ? (rest - 4) / 16 : 0;
  }
  return p;
}

// Blocks of kCopyThreads: one 16-byte store per thread at most, at least one
// block (head and tail), at most max_blocks (the rest is grid-stride).
inline unsigned copy_blocks(size_t nvec, unsigned max_blocks) {
  size_t blocks = (nvec + kCopyThreads - 1) / kCopyThreads;
  if (blocks > max_blocks) blocks = max_blocks;
  return blocks == 0 ? 1u : static_cast<unsigned>(blocks);
}

template <class T>
NBRCOLL_HD inline T load(const unsigned char* p) {
#ifdef NBRCOLL_GPU_COMPILER
  return *reinterpret_cast<const T*>(p);
#else
  if ((reinterpret_cast<uintptr_t>(p) & (sizeof(T) - 1)) != 0) __builtin_trap();  // the GPU would fault
#ifdef NBRCOLL_COPY_TRACE_READ
  NBRCOLL_COPY_TRACE_READ(p, sizeof(T));  // the CPU tests check every read's range
#endif
  T v;
  memcpy(&v, p, sizeof v);
  return v;
#endif
}

NBRCOLL_HD inline void store(unsigned char* p, const Vec16& v) {
#ifdef NBRCOLL_GPU_COMPILER
  *reinterpret_cast<Vec16*>(p) = v;
#else
  if ((reinterpret_cast<uintptr_t>(p) & 15) != 0) __builtin_trap();
  memcpy(p, &v, sizeof v);
#endif
}

// Little-endian (every GPU we build for): bytes r.. of lo, then the first r of hi.
NBRCOLL_HD inline uint32_t join(uint32_t lo, uint32_t hi, unsigned r_bits) {
  return (lo >> r_bits) | (hi << (32 - r_bits));
}

template <unsigned Mode>
NBRCOLL_HD inline Vec16 load_vec(const CopyPlan& p, size_t j) {
  const unsigned char* s = p.src + p.head + 16 * j;
  Vec16 v;
  if constexpr (Mode == kSameAlignment) {
    v = load<Vec16>(s);
  } else if constexpr (Mode == kWordAligned) {
    v.x = load<uint32_t>(s);
    v.y = load<uint32_t>(s + 4);
    v.z = load<uint32_t>(s + 8);
    v.w = load<uint32_t>(s + 12);
  } else {
    const unsigned char* a = s - p.shift;
    const unsigned r = 8 * p.shift;
    const uint32_t w0 = load<uint32_t>(a), w1 = load<uint32_t>(a + 4), w2 = load<uint32_t>(a + 8);
    const uint32_t w3 = load<uint32_t>(a + 12), w4 = load<uint32_t>(a + 16);
    v.x = join(w0, w1, r);
    v.y = join(w1, w2, r);
    v.z = join(w2, w3, r);
    v.w = join(w3, w4, r);
  }
  return v;
}

// Grid-stride over the middle, four loads in flight per thread.
template <unsigned Mode>
NBRCOLL_HD inline void copy_middle(const CopyPlan& p, size_t tid, size_t nthreads) {
  unsigned char* d = p.dst + p.head;
  size_t j = tid;
  for (; j + 3 * nthreads < p.nvec; j += 4 * nthreads) {
    const Vec16 a = load_vec<Mode>(p, j);
    const Vec16 b = load_vec<Mode>(p, j + nthreads);
    const Vec16 c = load_vec<Mode>(p, j + 2 * nthreads);
    const Vec16 e = load_vec<Mode>(p, j + 3 * nthreads);
    store(d + 16 * j, a);
    store(d + 16 * (j + nthreads), b);
    store(d + 16 * (j + 2 * nthreads), c);
    store(d + 16 * (j + 3 * nthreads), e);
  }
  for (; j < p.nvec; j += nthreads) store(d + 16 * j, load_vec<Mode>(p, j));
}

// Everything thread `tid` of `nthreads` does.
NBRCOLL_HD inline void copy_thread(const CopyPlan& p, size_t tid, size_t nthreads) {
  for (size_t i = tid; i < p.head; i += nthreads) p.dst[i] = p.src[i];
  for (size_t i = p.head + 16 * p.nvec + tid; i < p.bytes; i += nthreads) p.dst[i] = p.src[i];
  switch (p.mode) {
    case kSameAlignment:
      copy_middle<kSameAlignment>(p, tid, nthreads);
      break;
    case kWordAligned:
      copy_middle<kWordAligned>(p, tid, nthreads);
      break;
    default:
      copy_middle<kShifted>(p, tid, nthreads);
      break;
  }
}

#ifdef NBRCOLL_GPU_COMPILER
__global__ void __launch_bounds__(kCopyThreads) copy_kernel(CopyPlan p) {
  copy_thread(p, static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x,
              static_cast<size_t>(gridDim.x) * blockDim.x);
}
#endif

}  // namespace nbrcoll_gpu
