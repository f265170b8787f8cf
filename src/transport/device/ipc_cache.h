// IPC handle caches, keyed by allocation. Opening another process's
// allocation (and even asking for a handle) costs far more than a copy of a
// small fragment, so each is done once per allocation and remembered:
//  - export side: the handle of each of my allocations, got once;
//  - import side: each peer allocation, mapped once.
// An allocation is named by (process, base address, buffer id). A buffer id
// is unique for the life of a process, so an address that was freed and
// reused comes with a new id: the stale mapping is closed and the new one
// opened. Pure logic: the runtime calls come in as functions (unit-tested
// without a GPU).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <type_traits>

#include "transport/device/backend_abi.h"

namespace nbrcoll {

// What a sender tells a receiver about one chunk of device memory: the chunk
// lives at `offset` in allocation (base, size, buffer_id), which `handle`
// opens. Sent as raw bytes in the "fragment is ready" note. A note with
// `missing` set carries no chunk: the fragment's bytes never reached the
// sender (an error upstream), and the receiver must not use its slot.
struct IpcDescriptor {
  std::uint64_t missing = 0;
  std::uint64_t bytes = 0;  // the fragment's size as its sender sees it
  std::uint64_t buffer_id = 0;
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::uint64_t offset = 0;
  nbrcoll_ipc_handle handle{};
};
static_assert(std::is_trivially_copyable_v<IpcDescriptor>);

class IpcExportCache {
 public:
  using Get = std::function<int(void* base, nbrcoll_ipc_handle& out)>;
  // The handle of allocation (base, buffer_id): cached, or got with `get`. 0 or get's error.
  int handle(void* base, std::uint64_t buffer_id, const Get& get, nbrcoll_ipc_handle& out);
  [[nodiscard]] long gets() const { return gets_; }

 private:
  struct Entry {
    std::uint64_t buffer_id;
    nbrcoll_ipc_handle handle;
  };
  std::map<std::uintptr_t, Entry> by_base_;
  long gets_ = 0;
};

class IpcImportCache {
 public:
  // Mappings kept per peer: past this, the least recently used is closed
  // (safe: every descriptor carries its handle, so a later use reopens it).
  // Bounds what allocations a peer freed without reusing their addresses pin.
  explicit IpcImportCache(std::size_t per_peer = 64) : per_peer_(per_peer) {}

  using Open = std::function<int(const nbrcoll_ipc_handle& handle, void** mapped)>;
  using Close = std::function<int(void* mapped)>;
  // The local address of the base of the allocation `d` names in process
  // `peer`: cached, or opened. Cached mappings of that peer overlapping the
  // allocation under another buffer id are closed first. 0 or open's error.
  int map(int peer, const IpcDescriptor& d, const Open& open, const Close& close, void** mapped);

  struct Stats {
    long hits = 0;
    long opens = 0;
    long invalidations = 0;
    long evictions = 0;
  };
  [[nodiscard]] const Stats& stats() const { return stats_; }
  [[nodiscard]] std::size_t size() const;

 private:
  struct Entry {
    std::uint64_t buffer_id;
    std::uint64_t size;
    void* mapped;
    std::uint64_t last_use;
  };
  std::map<int, std::map<std::uint64_t, Entry>> peers_;  // peer -> base -> mapping
  std::size_t per_peer_;
  std::uint64_t uses_ = 0;
  Stats stats_;
};

}  // namespace nbrcoll
