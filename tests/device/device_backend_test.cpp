// A device backend plugin on a real GPU, through the C ABI only: the plugin
// named by NBRCOLL_TEST_DEVICE_BACKEND (else the one built with this test) is
// dlopened once. No plugin that loads, or no device: every test skips with
// "no GPU: ...". A plugin that loads but has no valid table fails.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "transport/device/backend_abi.h"
#include "transport/device/open_backend.h"

#ifndef NBRCOLL_TEST_DEFAULT_BACKEND
#define NBRCOLL_TEST_DEFAULT_BACKEND ""
#endif

namespace {

struct Env {
  nbrcoll_gpu::OpenedBackend plugin;
  std::string no_device;  // why there is no device to test on ("" if there is one)
};

const Env& env() {
  static const Env e = [] {
    Env r;
    const char* path = std::getenv("NBRCOLL_TEST_DEVICE_BACKEND");
    r.plugin = nbrcoll_gpu::open_backend(path != nullptr && *path != '\0' ? path : NBRCOLL_TEST_DEFAULT_BACKEND);
    if (r.plugin.table != nullptr) {
      int count = 0;
      if (r.plugin.table->device_count(&count) != 0) {
        r.no_device = std::string("device_count failed: ") + r.plugin.table->last_error();
      } else if (count == 0) {
        r.no_device = "device_count is 0";
      }
    }
    return r;
  }();
  return e;
}

// Tests that need only the plugin to load.
class Plugin : public ::testing::Test {
 protected:
  void SetUp() override {
    const Env& e = env();
    if (!e.plugin.loaded) GTEST_SKIP() << "no GPU: " << e.plugin.error;
    ASSERT_NE(e.plugin.table, nullptr) << e.plugin.error;
    g = e.plugin.table;
  }
  const nbrcoll_device_backend* g = nullptr;
};

// Tests that need a device.
class Device : public Plugin {
 protected:
  void SetUp() override {
    Plugin::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (!env().no_device.empty()) GTEST_SKIP() << "no GPU: " << env().no_device;
  }
};

struct DeviceBuffer {
  DeviceBuffer(const nbrcoll_device_backend* backend, size_t n) : g(backend), bytes(n) {
    if (g->device_malloc(&p, n) != 0) ADD_FAILURE() << "device_malloc(" << n << "): " << g->last_error();
  }
  ~DeviceBuffer() {
    if (p != nullptr) g->device_free(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  unsigned char* at(size_t off) const { return static_cast<unsigned char*>(p) + off; }
  const nbrcoll_device_backend* g;
  void* p = nullptr;
  size_t bytes;
};

std::vector<unsigned char> random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

unsigned char guard_byte(size_t i) {
  return static_cast<unsigned char>(0xA5 ^ (i * 7));
}

constexpr size_t kGuard = 64;
constexpr size_t kMaxOffset = 17;

// Copies `size` bytes from src + kGuard + soff to dst + kGuard + doff with the
// plugin's kernel and checks the whole dst allocation against the reference.
class CopyCheck {
 public:
  CopyCheck(const nbrcoll_device_backend* g, size_t max_size, void* stream)
      : g_(g),
        stream_(stream),
        n_(max_size + 2 * kGuard + kMaxOffset),
        dst_(g, n_),
        src_(g, n_),
        src_host_(random_bytes(n_, static_cast<unsigned>(max_size))),
        guard_(n_),
        out_(n_) {
    for (size_t i = 0; i < n_; ++i) guard_[i] = guard_byte(i);
    if (src_.p != nullptr && g_->copy_to_device_sync(src_.p, src_host_.data(), n_) != 0) {
      ADD_FAILURE() << "copy_to_device_sync: " << g_->last_error();
    }
  }

  void check(size_t size, size_t doff, size_t soff) {
    ASSERT_NE(dst_.p, nullptr);
    ASSERT_NE(src_.p, nullptr);
    ASSERT_EQ(g_->copy_to_device_sync(dst_.p, guard_.data(), n_), 0) << g_->last_error();
    ASSERT_EQ(g_->copy_async(dst_.at(kGuard + doff), src_.at(kGuard + soff), size, stream_), 0) << g_->last_error();
    ASSERT_EQ(g_->stream_sync(stream_), 0) << g_->last_error();
    ASSERT_EQ(g_->copy_to_host_sync(out_.data(), dst_.p, n_), 0) << g_->last_error();
    const size_t lo = kGuard + doff, hi = kGuard + doff + size;
    for (size_t i = 0; i < n_; ++i) {
      const bool inside = i >= lo && i < hi;
      const unsigned char want = inside ? src_host_[i - doff + soff] : guard_[i];
      if (out_[i] != want) {
        FAIL() << "size " << size << ", dst offset " << doff << ", src offset " << soff << ": byte " << i
               << (inside ? " (copied)" : " (guard)") << " is " << int(out_[i]) << ", want " << int(want);
      }
    }
  }

 private:
  const nbrcoll_device_backend* g_;
  void* stream_;
  size_t n_;
  DeviceBuffer dst_, src_;
  std::vector<unsigned char> src_host_, guard_, out_;
};

TEST_F(Plugin, TableIsComplete) {
  EXPECT_EQ(g->abi_version, NBRCOLL_DEVICE_ABI_VERSION);
  ASSERT_NE(g->name, nullptr);
  EXPECT_GT(std::strlen(g->name), 0u);
  const void* fns[] = {
      reinterpret_cast<const void*>(g->pointer_info),      reinterpret_cast<const void*>(g->pci_bus_id),
      reinterpret_cast<const void*>(g->current_device),    reinterpret_cast<const void*>(g->ipc_get),
      reinterpret_cast<const void*>(g->ipc_open),          reinterpret_cast<const void*>(g->ipc_close),
      reinterpret_cast<const void*>(g->stream_create),     reinterpret_cast<const void*>(g->stream_destroy),
      reinterpret_cast<const void*>(g->event_create),      reinterpret_cast<const void*>(g->event_destroy),
      reinterpret_cast<const void*>(g->event_record),      reinterpret_cast<const void*>(g->event_query),
      reinterpret_cast<const void*>(g->copy_async),        reinterpret_cast<const void*>(g->stream_sync),
      reinterpret_cast<const void*>(g->copy_to_host_sync), reinterpret_cast<const void*>(g->copy_to_device_sync),
      reinterpret_cast<const void*>(g->host_alloc_pinned), reinterpret_cast<const void*>(g->host_free_pinned),
      reinterpret_cast<const void*>(g->last_error),        reinterpret_cast<const void*>(g->device_count),
      reinterpret_cast<const void*>(g->set_device),        reinterpret_cast<const void*>(g->device_malloc),
      reinterpret_cast<const void*>(g->device_free),       reinterpret_cast<const void*>(g->runtime_copy_sync)};
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; ++i) EXPECT_NE(fns[i], nullptr) << "function " << i;
  ASSERT_NE(g->last_error(), nullptr);
}

TEST_F(Device, CurrentDeviceAndPciBusId) {
  int count = 0, dev = -1;
  ASSERT_EQ(g->device_count(&count), 0) << g->last_error();
  ASSERT_EQ(g->current_device(&dev), 0) << g->last_error();
  EXPECT_GE(dev, 0);
  EXPECT_LT(dev, count);
  char bus[64] = {};
  ASSERT_EQ(g->pci_bus_id(dev, bus, sizeof bus), 0) << g->last_error();
  EXPECT_NE(std::strchr(bus, ':'), nullptr) << bus;
  EXPECT_EQ(g->set_device(dev), 0) << g->last_error();
}

TEST_F(Device, FailureSetsLastErrorAndLeavesNoStickyState) {
  int count = 0;
  ASSERT_EQ(g->device_count(&count), 0);
  EXPECT_NE(g->set_device(count + 1000), 0);
  EXPECT_GT(std::strlen(g->last_error()), 0u);
  DeviceBuffer b(g, 4096);  // the runtime still works
  EXPECT_NE(b.p, nullptr);
}

TEST_F(Device, CopyOfZeroBytesDoesNothing) {
  EXPECT_EQ(g->copy_async(nullptr, nullptr, 0, nullptr), 0) << g->last_error();
}

TEST_F(Device, KernelCopySmallSizesEveryOffsetMix) {
  void* stream = nullptr;
  ASSERT_EQ(g->stream_create(&stream), 0) << g->last_error();
  const size_t sizes[] = {0,  1,  2,  3,  4,  5,  7,  8,   15,  16,  17,  19,   20,   31,
                          32, 33, 35, 47, 63, 64, 65, 100, 255, 256, 257, 4095, 4096, 4097};
  CopyCheck c(g, 4097, stream);
  for (size_t size : sizes) {
    for (size_t doff = 0; doff <= kMaxOffset; ++doff) {
      for (size_t soff = 0; soff <= kMaxOffset; ++soff) {
        if (!HasFailure()) c.check(size, doff, soff);
      }
    }
  }
  EXPECT_EQ(g->stream_destroy(stream), 0) << g->last_error();
}

// Up to 33 MiB: several grid-stride rounds of the largest grid.
TEST_F(Device, KernelCopyLargeSizes) {
  void* stream = nullptr;
  ASSERT_EQ(g->stream_create(&stream), 0) << g->last_error();
  const size_t sizes[] = {65537, (size_t(1) << 20) + 3, (size_t(8) << 20) + 5, (size_t(33) << 20) + 1};
  const size_t offsets[][2] = {{0, 0}, {1, 1}, {15, 15}, {0, 1},  {1, 0}, {3, 7},
                               {4, 8}, {8, 4}, {16, 17}, {17, 2}, {2, 6}, {13, 5}};
  CopyCheck c(g, sizes[3], stream);
  for (size_t size : sizes) {
    for (const auto& o : offsets) {
      if (!HasFailure()) c.check(size, o[0], o[1]);
    }
  }
  EXPECT_EQ(g->stream_destroy(stream), 0) << g->last_error();
}

TEST_F(Device, KernelCopyOnTheDefaultStream) {
  CopyCheck c(g, 100003, nullptr);
  c.check(100003, 3, 5);
  c.check(100000, 0, 0);
}

TEST_F(Device, SyncCopiesRoundTrip) {
  const size_t n = (size_t(3) << 20) + 7;
  const std::vector<unsigned char> in = random_bytes(n, 7);
  DeviceBuffer a(g, n), b(g, n);
  ASSERT_NE(a.p, nullptr);
  ASSERT_NE(b.p, nullptr);
  ASSERT_EQ(g->copy_to_device_sync(a.p, in.data(), n), 0) << g->last_error();
  ASSERT_EQ(g->runtime_copy_sync(b.p, a.p, n), 0) << g->last_error();
  void* pinned = nullptr;
  ASSERT_EQ(g->host_alloc_pinned(&pinned, n), 0) << g->last_error();
  ASSERT_EQ(g->copy_to_host_sync(pinned, b.p, n), 0) << g->last_error();
  EXPECT_EQ(std::memcmp(pinned, in.data(), n), 0);
  EXPECT_EQ(g->host_free_pinned(pinned), 0) << g->last_error();
}

TEST_F(Device, PointerInfoOnDeviceMemory) {
  const size_t n = size_t(1) << 20;
  DeviceBuffer b(g, n);
  ASSERT_NE(b.p, nullptr);
  int dev = -1;
  ASSERT_EQ(g->current_device(&dev), 0);
  nbrcoll_pointer_info info{};
  ASSERT_EQ(g->pointer_info(b.p, &info), 0) << g->last_error();
  EXPECT_EQ(info.is_device, 1);
  EXPECT_EQ(info.device, dev);
  EXPECT_NE(info.buffer_id, 0u);
  auto* base = static_cast<unsigned char*>(info.base);
  ASSERT_NE(base, nullptr);
  EXPECT_LE(base, b.at(0));
  EXPECT_GE(base + info.size, b.at(n));

  nbrcoll_pointer_info inner{};
  ASSERT_EQ(g->pointer_info(b.at(12345), &inner), 0) << g->last_error();
  EXPECT_EQ(inner.is_device, 1);
  EXPECT_EQ(inner.device, dev);
  EXPECT_EQ(inner.buffer_id, info.buffer_id);
  EXPECT_EQ(inner.base, info.base);
  EXPECT_EQ(inner.size, info.size);
}

TEST_F(Device, PointerInfoOnHostMemory) {
  std::vector<unsigned char> heap(4096);
  int on_stack = 0;
  const void* pointers[] = {heap.data(), &on_stack, nullptr};
  for (const void* p : pointers) {
    nbrcoll_pointer_info info{};
    info.is_device = 7;
    EXPECT_EQ(g->pointer_info(p, &info), 0) << g->last_error();
    EXPECT_EQ(info.is_device, 0);
  }
  DeviceBuffer b(g, 4096);  // the runtime still works after the "unknown pointer" answers
  EXPECT_NE(b.p, nullptr);
}

TEST_F(Device, PointerInfoOnPinnedHostMemory) {
  void* pinned = nullptr;
  ASSERT_EQ(g->host_alloc_pinned(&pinned, 65536), 0) << g->last_error();
  nbrcoll_pointer_info info{};
  info.is_device = 7;
  EXPECT_EQ(g->pointer_info(static_cast<char*>(pinned) + 100, &info), 0) << g->last_error();
  EXPECT_EQ(info.is_device, 0);
  EXPECT_EQ(g->host_free_pinned(pinned), 0) << g->last_error();
}

TEST_F(Device, BufferIdChangesAfterFreeAndMalloc) {
  const size_t n = size_t(2) << 20;
  void* a = nullptr;
  ASSERT_EQ(g->device_malloc(&a, n), 0) << g->last_error();
  nbrcoll_pointer_info first{};
  ASSERT_EQ(g->pointer_info(a, &first), 0) << g->last_error();
  ASSERT_EQ(g->device_free(a), 0) << g->last_error();
  void* b = nullptr;
  ASSERT_EQ(g->device_malloc(&b, n), 0) << g->last_error();
  nbrcoll_pointer_info second{};
  ASSERT_EQ(g->pointer_info(b, &second), 0) << g->last_error();
  RecordProperty("address_reused", a == b ? "yes" : "no");
  EXPECT_EQ(second.is_device, 1);
  EXPECT_NE(second.buffer_id, first.buffer_id) << "address reused: " << (a == b ? "yes" : "no");
  EXPECT_EQ(g->device_free(b), 0) << g->last_error();
}

// Opening a handle in the process that made it is not allowed (CUDA): only get.
TEST_F(Device, IpcHandleOfDeviceAllocation) {
  DeviceBuffer b(g, size_t(1) << 20);
  ASSERT_NE(b.p, nullptr);
  nbrcoll_ipc_handle h;
  std::memset(&h, 0, sizeof h);
  ASSERT_EQ(g->ipc_get(b.p, &h), 0) << g->last_error();
  bool nonzero = false;
  for (unsigned char c : h.bytes) nonzero = nonzero || c != 0;
  EXPECT_TRUE(nonzero);
}

TEST_F(Device, StreamAndEventRoundTrip) {
  const size_t n = (size_t(16) << 20) + 1;
  const std::vector<unsigned char> in = random_bytes(n, 11);
  DeviceBuffer a(g, n), b(g, n);
  ASSERT_NE(a.p, nullptr);
  ASSERT_NE(b.p, nullptr);
  ASSERT_EQ(g->copy_to_device_sync(a.p, in.data(), n), 0) << g->last_error();
  void* stream = nullptr;
  void* event = nullptr;
  ASSERT_EQ(g->stream_create(&stream), 0) << g->last_error();
  ASSERT_EQ(g->event_create(&event), 0) << g->last_error();
  ASSERT_EQ(g->copy_async(b.p, a.at(1), n - 1, stream), 0) << g->last_error();
  ASSERT_EQ(g->event_record(event, stream), 0) << g->last_error();
  int done = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (done == 0 && std::chrono::steady_clock::now() < deadline) {
    ASSERT_EQ(g->event_query(event, &done), 0) << g->last_error();
  }
  EXPECT_EQ(done, 1);
  ASSERT_EQ(g->stream_sync(stream), 0) << g->last_error();
  std::vector<unsigned char> out(n - 1);
  ASSERT_EQ(g->copy_to_host_sync(out.data(), b.p, n - 1), 0) << g->last_error();
  EXPECT_EQ(std::memcmp(out.data(), in.data() + 1, n - 1), 0);
  EXPECT_EQ(g->event_destroy(event), 0) << g->last_error();
  EXPECT_EQ(g->stream_destroy(stream), 0) << g->last_error();
}

}  // namespace
