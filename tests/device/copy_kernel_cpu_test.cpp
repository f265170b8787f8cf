// The copy kernel's per-thread code (src/transport/device/gpu/copy_kernel.h) run on the
// CPU, thread by thread, as a GPU grid would run it: every size and offset
// mix against memcpy, guard bytes around dst, the plan's invariants, and the
// range of every word and vector read (only the aligned word holding src's
// first byte may start before src; nothing may end after src + bytes). Built
// as plain C++, its loads and stores trap on a misaligned access.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

// Every word or vector load of the kernel, checked against the source range.
struct ReadRange {
  const unsigned char* lo = nullptr;  // the copy's src
  const unsigned char* hi = nullptr;  // src + bytes
  size_t bad = 0;
};
ReadRange g_reads;

void trace_read(const unsigned char* p, size_t n) {
  if (g_reads.lo == nullptr) return;
  const auto first_word =
      reinterpret_cast<const unsigned char*>(reinterpret_cast<uintptr_t>(g_reads.lo) & ~uintptr_t(3));
  if (p < first_word || p + n > g_reads.hi) ++g_reads.bad;
}

}  // namespace

#define NBRCOLL_COPY_TRACE_READ(p, n) trace_read(p, n)
#include "transport/device/gpu/copy_kernel.h"

namespace {

using nbrcoll_gpu::copy_blocks;
using nbrcoll_gpu::copy_thread;
using nbrcoll_gpu::CopyPlan;
using nbrcoll_gpu::kCopyThreads;
using nbrcoll_gpu::plan_copy;

constexpr size_t kGuard = 64;
constexpr size_t kMaxOffset = 17;

void run_grid(void* dst, const void* src, size_t bytes, size_t nthreads) {
  const CopyPlan p = plan_copy(dst, src, bytes);
  g_reads.lo = static_cast<const unsigned char*>(src);
  g_reads.hi = g_reads.lo + bytes;
  g_reads.bad = 0;
  for (size_t t = 0; t < nthreads; ++t) copy_thread(p, t, nthreads);
  g_reads.lo = nullptr;
  ASSERT_EQ(g_reads.bad, 0u) << "reads outside the source: " << bytes
                             << " bytes, src mod 16 = " << reinterpret_cast<uintptr_t>(src) % 16
                             << ", dst mod 16 = " << reinterpret_cast<uintptr_t>(dst) % 16;
}

std::vector<unsigned char> random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

// A 64-byte aligned buffer (as device allocations are) with guard room.
struct Buffer {
  explicit Buffer(size_t n) : bytes(n + 2 * kGuard + kMaxOffset + 64) {}
  unsigned char* base() {
    auto a = reinterpret_cast<uintptr_t>(bytes.data());
    return bytes.data() + ((64 - (a & 63)) & 63);
  }
  size_t usable() const { return bytes.size() - 64; }
  std::vector<unsigned char> bytes;
};

// Copies `size` bytes between the offsets and checks dst and its guards.
void check_copy(size_t size, size_t doff, size_t soff, size_t nthreads, Buffer& dst, Buffer& src) {
  const size_t n = dst.usable();
  unsigned char* d = dst.base();
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<unsigned char>(0xA5 ^ (i * 7));
  run_grid(d + kGuard + doff, src.base() + kGuard + soff, size, nthreads);
  if (::testing::Test::HasFatalFailure()) return;
  for (size_t i = 0; i < n; ++i) {
    const bool inside = i >= kGuard + doff && i < kGuard + doff + size;
    const unsigned char want = inside ? src.base()[i - doff + soff] : static_cast<unsigned char>(0xA5 ^ (i * 7));
    if (d[i] != want) {
      FAIL() << "size " << size << " dst offset " << doff << " src offset " << soff << " threads " << nthreads
             << ": byte " << i << (inside ? " (copied)" : " (guard)") << " is " << int(d[i]) << ", want " << int(want);
    }
  }
}

TEST(CopyPlan, HeadAlignsDstAndTailKeepsReadsInside) {
  alignas(64) static unsigned char buf[256];
  for (size_t doff = 0; doff < 32; ++doff) {
    for (size_t soff = 0; soff < 32; ++soff) {
      for (size_t bytes = 0; bytes < 100; ++bytes) {
        const CopyPlan p = plan_copy(buf + doff, buf + 64 + soff, bytes);
        ASSERT_LE(p.head, 15u);
        ASSERT_LE(p.head + 16 * p.nvec, bytes);
        const size_t tail = bytes - p.head - 16 * p.nvec;
        if (p.head < bytes) {
          ASSERT_EQ(reinterpret_cast<uintptr_t>(buf + doff + p.head) % 16, 0u);
        }
        if (p.mode == nbrcoll_gpu::kShifted) {
          ASSERT_GE(p.shift, 1u);
          ASSERT_LE(p.shift, 3u);
          ASSERT_GE(tail, std::min<size_t>(4, bytes - p.head));
          ASSERT_LT(tail, 20u);
        } else {
          ASSERT_LT(tail, 16u);
        }
        const uintptr_t s = reinterpret_cast<uintptr_t>(buf + 64 + soff) + p.head;
        ASSERT_EQ(p.mode == nbrcoll_gpu::kSameAlignment, s % 16 == 0);
        ASSERT_EQ(p.mode == nbrcoll_gpu::kWordAligned, s % 16 != 0 && s % 4 == 0);
      }
    }
  }
}

TEST(CopyPlan, BlocksBoundedBySizeAndCap) {
  EXPECT_EQ(copy_blocks(0, 528), 1u);
  EXPECT_EQ(copy_blocks(1, 528), 1u);
  EXPECT_EQ(copy_blocks(kCopyThreads, 528), 1u);
  EXPECT_EQ(copy_blocks(kCopyThreads + 1, 528), 2u);
  EXPECT_EQ(copy_blocks(size_t(1) << 30, 528), 528u);
}

TEST(CopyKernelOnCpu, EverySmallSizeEveryOffsetMix) {
  const size_t kMax = 300;
  Buffer dst(kMax), src(kMax);
  src.bytes = random_bytes(src.bytes.size(), 1);
  for (size_t size = 0; size <= kMax; ++size) {
    for (size_t doff = 0; doff <= kMaxOffset; ++doff) {
      for (size_t soff = 0; soff <= kMaxOffset; ++soff) {
        for (size_t nthreads : {size_t(1), size_t(7), size_t(kCopyThreads)}) {
          check_copy(size, doff, soff, nthreads, dst, src);
          if (HasFailure()) return;
        }
      }
    }
  }
}

TEST(CopyKernelOnCpu, LargeSizesManyGridShapes) {
  const size_t sizes[] = {4095, 4096, 4097, 65537, (size_t(1) << 20) + 3};
  const size_t offsets[][2] = {{0, 0}, {1, 1}, {15, 15}, {0, 1}, {1, 0}, {3, 7}, {4, 8}, {8, 4}, {16, 17}, {17, 2}};
  for (size_t size : sizes) {
    Buffer dst(size), src(size);
    src.bytes = random_bytes(src.bytes.size(), static_cast<unsigned>(size));
    for (const auto& o : offsets) {
      for (size_t nthreads : {size_t(1), size_t(1000), size_t(5 * kCopyThreads)}) {
        check_copy(size, o[0], o[1], nthreads, dst, src);
        if (HasFailure()) return;
      }
    }
  }
}

// Source ending at / starting at a page with no access on the other side:
// the reads the tracer allows must not fault either.
TEST(CopyKernelOnCpu, NoFaultAtPageEdges) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* map = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  auto* pages = static_cast<unsigned char*>(map);
  ASSERT_EQ(mprotect(pages, page, PROT_NONE), 0);
  ASSERT_EQ(mprotect(pages + 2 * page, page, PROT_NONE), 0);
  unsigned char* mid = pages + page;
  const std::vector<unsigned char> data = random_bytes(page, 3);
  memcpy(mid, data.data(), page);
  Buffer dst(page);
  for (size_t bytes = 0; bytes <= 300; ++bytes) {
    for (size_t doff = 0; doff < 16; ++doff) {
      unsigned char* d = dst.base() + doff;
      const unsigned char* at_end = mid + page - bytes;  // ends where the page ends
      run_grid(d, at_end, bytes, 7);
      if (HasFatalFailure()) return;
      ASSERT_EQ(memcmp(d, at_end, bytes), 0) << bytes << " bytes ending at the page end, dst offset " << doff;
      for (size_t soff = 0; soff < 4 && bytes + soff <= page; ++soff) {
        run_grid(d, mid + soff, bytes, 7);  // starts at the page start
        if (HasFatalFailure()) return;
        ASSERT_EQ(memcmp(d, mid + soff, bytes), 0) << bytes << " bytes from page start + " << soff;
      }
    }
  }
  munmap(map, 3 * page);
}

}  // namespace
