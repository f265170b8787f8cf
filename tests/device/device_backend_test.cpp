// A device backend plugin on a real GPU, through the C ABI only: the plugin
// named by NBRCOLL_TEST_DEVICE_BACKEND (else the one built with this test) is
// dlopened once. A real plugin that does not load (its GPU runtime is not
// installed), or no device: every test skips with "no GPU: ...". A plugin
// file that is not there, a plugin that loads but has no valid table, and
// the fake device (NBRCOLL_TEST_REQUIRED_BACKEND: it needs no hardware)
// that does not load or has no device fail.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/device_checks/copy_check.h"
#include "transport/device/backend_abi.h"
#include "transport/device/open_backend.h"

#ifndef NBRCOLL_TEST_DEFAULT_BACKEND
#define NBRCOLL_TEST_DEFAULT_BACKEND ""
#endif
#ifndef NBRCOLL_TEST_REQUIRED_BACKEND
#define NBRCOLL_TEST_REQUIRED_BACKEND ""
#endif

namespace {

struct Env {
  nbrcoll_gpu::OpenedBackend plugin;
  std::string no_device;  // why there is no device to test on ("" if there is one)
  // A missing device fails instead of skipping: the plugin is the fake one
  // (no hardware needed), or its file is not there (the build is broken).
  bool required = false;
};

const Env& env() {
  static const Env e = [] {
    Env r;
    const char* chosen = std::getenv("NBRCOLL_TEST_DEVICE_BACKEND");
    const std::string path = chosen != nullptr && *chosen != '\0' ? chosen : NBRCOLL_TEST_DEFAULT_BACKEND;
    r.plugin = nbrcoll_gpu::open_backend(path);
    struct stat st {};
    r.required = path == NBRCOLL_TEST_REQUIRED_BACKEND || stat(path.c_str(), &st) != 0;
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
    if (!e.plugin.loaded && e.required) FAIL() << "the plugin must load here: " << e.plugin.error;
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
    if (!env().no_device.empty() && env().required) FAIL() << "the plugin must have a device: " << env().no_device;
    if (!env().no_device.empty()) GTEST_SKIP() << "no GPU: " << env().no_device;
  }
};

using nbrcoll_check::CopyCheck;
using nbrcoll_check::random_bytes;

// A device allocation that fails the test when it cannot be made.
struct DeviceBuffer : nbrcoll_check::DeviceAlloc {
  DeviceBuffer(const nbrcoll_device_backend* backend, size_t n) : DeviceAlloc(backend, n) {
    if (p == nullptr) ADD_FAILURE() << error;
  }
};

TEST_F(Plugin, TableIsComplete) {
  EXPECT_EQ(g->abi_version, NBRCOLL_DEVICE_ABI_VERSION);
  EXPECT_EQ(nbrcoll_check::missing_functions(*g), "");
  ASSERT_NE(g->last_error, nullptr);
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
  EXPECT_EQ(nbrcoll_check::sweep_small_copies(g, stream).first_failure, "");
  EXPECT_EQ(g->stream_destroy(stream), 0) << g->last_error();
}

// Up to 33 MiB: several grid-stride rounds of the largest grid.
TEST_F(Device, KernelCopyLargeSizes) {
  void* stream = nullptr;
  ASSERT_EQ(g->stream_create(&stream), 0) << g->last_error();
  EXPECT_EQ(nbrcoll_check::sweep_large_copies(g, stream).first_failure, "");
  EXPECT_EQ(g->stream_destroy(stream), 0) << g->last_error();
}

TEST_F(Device, KernelCopyOnTheDefaultStream) {
  CopyCheck c(g, 100003, nullptr);
  EXPECT_EQ(c.check(100003, 3, 5), "");
  EXPECT_EQ(c.check(100000, 0, 0), "");
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
  EXPECT_EQ(nbrcoll_check::check_device_pointer_info(g, b.p, n), "");
}

TEST_F(Device, PointerInfoOnHostMemory) {
  std::vector<unsigned char> heap(4096);
  int on_stack = 0;
  EXPECT_EQ(nbrcoll_check::check_host_pointer_info(g, heap.data(), "heap"), "");
  EXPECT_EQ(nbrcoll_check::check_host_pointer_info(g, &on_stack, "stack"), "");
  EXPECT_EQ(nbrcoll_check::check_host_pointer_info(g, nullptr, "nullptr"), "");
  DeviceBuffer b(g, 4096);  // the runtime still works after the "unknown pointer" answers
  EXPECT_NE(b.p, nullptr);
}

TEST_F(Device, PointerInfoOnPinnedHostMemory) {
  void* pinned = nullptr;
  ASSERT_EQ(g->host_alloc_pinned(&pinned, 65536), 0) << g->last_error();
  EXPECT_EQ(nbrcoll_check::check_host_pointer_info(g, static_cast<char*>(pinned) + 100, "pinned"), "");
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
