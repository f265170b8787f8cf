// The IPC handle caches without a GPU: open/close/get are counting stand-ins.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "transport/device/ipc_cache.h"

namespace nbrcoll {
namespace {

struct FakeRuntime {
  int opens = 0;
  std::vector<void*> closed;
  int gets = 0;
  std::uintptr_t next_mapping = 0x10000;
  IpcImportCache::Open open = [this](const nbrcoll_ipc_handle&, void** m) {
    ++opens;
    *m = reinterpret_cast<void*>(next_mapping += 0x1000);
    return 0;
  };
  IpcImportCache::Close close = [this](void* m) {
    closed.push_back(m);
    return 0;
  };
  IpcExportCache::Get get = [this](void*, nbrcoll_ipc_handle& h) {
    h.bytes[0] = static_cast<unsigned char>(++gets);
    return 0;
  };
};

IpcDescriptor allocation(std::uint64_t base, std::uint64_t size, std::uint64_t id) {
  IpcDescriptor d;
  d.base = base;
  d.size = size;
  d.buffer_id = id;
  return d;
}

TEST(IpcImportCache, OpensOnceThenHits) {
  FakeRuntime rt;
  IpcImportCache cache;
  void* first = nullptr;
  void* again = nullptr;
  ASSERT_EQ(cache.map(3, allocation(0x1000, 4096, 7), rt.open, rt.close, &first), 0);
  ASSERT_EQ(cache.map(3, allocation(0x1000, 4096, 7), rt.open, rt.close, &again), 0);
  EXPECT_EQ(first, again);
  EXPECT_EQ(rt.opens, 1);
  EXPECT_EQ(cache.stats().hits, 1);
  EXPECT_EQ(cache.stats().opens, 1);
}

TEST(IpcImportCache, PeersAreSeparate) {
  FakeRuntime rt;
  IpcImportCache cache;
  void* a = nullptr;
  void* b = nullptr;
  cache.map(1, allocation(0x1000, 4096, 7), rt.open, rt.close, &a);
  cache.map(2, allocation(0x1000, 4096, 7), rt.open, rt.close, &b);
  EXPECT_NE(a, b);
  EXPECT_EQ(rt.opens, 2);
  EXPECT_TRUE(rt.closed.empty());
}

TEST(IpcImportCache, ReusedAddressWithNewIdIsReopened) {
  FakeRuntime rt;
  IpcImportCache cache;
  void* old_mapping = nullptr;
  void* fresh = nullptr;
  cache.map(0, allocation(0x1000, 4096, 7), rt.open, rt.close, &old_mapping);
  cache.map(0, allocation(0x1000, 4096, 8), rt.open, rt.close, &fresh);  // freed, reallocated at the same address
  EXPECT_NE(old_mapping, fresh);
  ASSERT_EQ(rt.closed.size(), 1u);
  EXPECT_EQ(rt.closed[0], old_mapping);
  EXPECT_EQ(cache.stats().invalidations, 1);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(IpcImportCache, OverlappingAllocationsInvalidateOldOnes) {
  FakeRuntime rt;
  IpcImportCache cache;
  void* m = nullptr;
  cache.map(0, allocation(0x10000, 0x4000, 1), rt.open, rt.close, &m);  // [0x10000, 0x14000)
  cache.map(0, allocation(0x20000, 0x1000, 2), rt.open, rt.close, &m);  // untouched below
  cache.map(0, allocation(0x12000, 0x1000, 3), rt.open, rt.close, &m);  // inside the first: it was freed
  EXPECT_EQ(cache.stats().invalidations, 1);
  EXPECT_EQ(cache.size(), 2u);
  cache.map(0, allocation(0x11000, 0x10000, 4), rt.open, rt.close, &m);  // covers both remaining
  EXPECT_EQ(cache.stats().invalidations, 3);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(IpcImportCache, AdjacentAllocationsStay) {
  FakeRuntime rt;
  IpcImportCache cache;
  void* m = nullptr;
  cache.map(0, allocation(0x10000, 0x1000, 1), rt.open, rt.close, &m);
  cache.map(0, allocation(0x11000, 0x1000, 2), rt.open, rt.close, &m);
  cache.map(0, allocation(0x0f000, 0x1000, 3), rt.open, rt.close, &m);
  EXPECT_EQ(cache.stats().invalidations, 0);
  EXPECT_EQ(cache.size(), 3u);
}

TEST(IpcImportCache, EvictsTheLeastRecentlyUsedPastTheBound) {
  FakeRuntime rt;
  IpcImportCache cache(2);
  void* a = nullptr;
  void* m = nullptr;
  cache.map(0, allocation(0x1000, 0x100, 1), rt.open, rt.close, &a);
  cache.map(0, allocation(0x2000, 0x100, 2), rt.open, rt.close, &m);
  cache.map(0, allocation(0x1000, 0x100, 1), rt.open, rt.close, &m);  // a is now the most recent
  cache.map(0, allocation(0x3000, 0x100, 3), rt.open, rt.close, &m);
  ASSERT_EQ(rt.closed.size(), 1u);
  EXPECT_NE(rt.closed[0], a);
  EXPECT_EQ(cache.stats().evictions, 1);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(IpcImportCache, FailedOpenIsReportedAndNotCached) {
  FakeRuntime rt;
  IpcImportCache cache;
  void* m = nullptr;
  auto failing = [](const nbrcoll_ipc_handle&, void**) { return 9; };
  EXPECT_EQ(cache.map(0, allocation(0x1000, 0x100, 1), failing, rt.close, &m), 9);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.map(0, allocation(0x1000, 0x100, 1), rt.open, rt.close, &m), 0);
  EXPECT_EQ(rt.opens, 1);
}

TEST(IpcExportCache, GetsAHandleOncePerAllocation) {
  FakeRuntime rt;
  IpcExportCache cache;
  nbrcoll_ipc_handle h1{};
  nbrcoll_ipc_handle h2{};
  int base = 0;
  cache.handle(&base, 5, rt.get, h1);
  cache.handle(&base, 5, rt.get, h2);
  EXPECT_EQ(rt.gets, 1);
  EXPECT_EQ(h1.bytes[0], h2.bytes[0]);
  cache.handle(&base, 6, rt.get, h2);  // same address, new allocation
  EXPECT_EQ(rt.gets, 2);
  EXPECT_NE(h1.bytes[0], h2.bytes[0]);
  EXPECT_EQ(cache.gets(), 2);
}

}  // namespace
}  // namespace nbrcoll
