#include "transport/device/ipc_cache.h"

#include <iterator>

namespace nbrcoll {

int IpcExportCache::handle(void* base, std::uint64_t buffer_id, const Get& get, nbrcoll_ipc_handle& out) {
  const auto key = reinterpret_cast<std::uintptr_t>(base);
  if (auto it = by_base_.find(key); it != by_base_.end() && it->second.buffer_id == buffer_id) {
    out = it->second.handle;
    return 0;
  }
  nbrcoll_ipc_handle fresh{};
  ++gets_;
  if (const int rc = get(base, fresh); rc != 0) return rc;
  by_base_[key] = Entry{buffer_id, fresh};  // replaces a freed allocation's entry at this address
  out = fresh;
  return 0;
}

int IpcImportCache::map(int peer, const IpcDescriptor& d, const Open& open, const Close& close, void** mapped) {
  auto& mine = peers_[peer];
  if (auto it = mine.find(d.base); it != mine.end() && it->second.buffer_id == d.buffer_id) {
    ++stats_.hits;
    it->second.last_use = ++uses_;
    *mapped = it->second.mapped;
    return 0;
  }
  // Entries overlapping [base, base + size) belong to allocations the peer has freed.
  auto it = mine.lower_bound(d.base);
  if (it != mine.begin()) {
    auto before = std::prev(it);
    if (before->first + before->second.size > d.base) it = before;
  }
  while (it != mine.end() && it->first < d.base + d.size) {
    close(it->second.mapped);
    ++stats_.invalidations;
    it = mine.erase(it);
  }
  if (mine.size() >= per_peer_ && !mine.empty()) {
    auto oldest = mine.begin();
    for (auto e = mine.begin(); e != mine.end(); ++e) {
      if (e->second.last_use < oldest->second.last_use) oldest = e;
    }
    close(oldest->second.mapped);
    ++stats_.evictions;
    mine.erase(oldest);
  }
  void* fresh = nullptr;
  ++stats_.opens;
  if (const int rc = open(d.handle, &fresh); rc != 0) return rc;
  mine[d.base] = Entry{d.buffer_id, d.size, fresh, ++uses_};
  *mapped = fresh;
  return 0;
}

std::size_t IpcImportCache::size() const {
  std::size_t n = 0;
  for (const auto& [peer, entries] : peers_) n += entries.size();
  return n;
}

}  // namespace nbrcoll
