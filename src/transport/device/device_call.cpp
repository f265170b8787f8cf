#include "transport/device/device_call.h"

#include <dlfcn.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "support/config.h"
#include "support/mpi_identity.h"

namespace nbrcoll {

namespace {

// Streams a process copies on, per device: peers are spread over them (by
// peer mod kStreams) so copies from different peers overlap.
constexpr int kStreams = 4;

struct Shared {
  std::mutex mutex;
  IpcExportCache exports;
  IpcImportCache imports;
  std::map<int, std::vector<void*>> streams;  // device -> streams
  std::vector<void*> free_events;
  std::vector<std::pair<char*, std::uint64_t>> free_staging;
};

// Never destroyed: other static destructors (and the runtime's own teardown)
// may still run after it; the process exit returns everything.
Shared& shared() {
  static auto* s = new Shared;
  return *s;
}

// Stream `index` (< kStreams) of the current device, created on first use.
// Caller holds the mutex.
int stream_for(const nbrcoll_device_backend& backend, Shared& s, int index, void*& stream) {
  int device = 0;
  if (const int rc = backend.current_device(&device); rc != 0) return rc;
  std::vector<void*>& streams = s.streams[device];
  while (streams.size() <= static_cast<std::size_t>(index)) {
    void* fresh = nullptr;
    if (const int rc = backend.stream_create(&fresh); rc != 0) return rc;
    streams.push_back(fresh);
  }
  stream = streams[static_cast<std::size_t>(index)];
  return 0;
}

// The IPC handle of the allocation `info` describes, exported once per
// allocation. 0 or the runtime's error.
int export_handle(const nbrcoll_device_backend& backend, const nbrcoll_pointer_info& info, nbrcoll_ipc_handle& out) {
  Shared& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.exports.handle(
      info.base, info.buffer_id, [&backend](void* base, nbrcoll_ipc_handle& h) { return backend.ipc_get(base, &h); },
      out);
}

}  // namespace

bool mpi_is_gpu_aware(const nbrcoll_device_backend& backend) {
  if (config().gpu_aware) return *config().gpu_aware;
  // The MPI's answer does not change: asked once per backend (a process has one).
  static std::atomic<const nbrcoll_device_backend*> asked{nullptr};
  static std::atomic<bool> answer{false};
  if (asked.load(std::memory_order_acquire) == &backend) return answer.load(std::memory_order_relaxed);
  answer.store(mpi_reports_gpu_support(backend.name), std::memory_order_relaxed);
  asked.store(&backend, std::memory_order_release);
  return answer.load(std::memory_order_relaxed);
}

bool can_export(const nbrcoll_device_backend& backend, const void* p) {
  nbrcoll_pointer_info info{};
  if (backend.pointer_info(p, &info) != 0 || info.is_device == 0) return false;
  nbrcoll_ipc_handle handle{};
  return export_handle(backend, info, handle) == 0;
}

DeviceCall::~DeviceCall() {
  Shared& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const Running& r : running_) {
    // An error ended the call early: let the copy finish before its event is reused.
    int done = 0;
    while (backend_.event_query(r.event, &done) == 0 && done == 0) {
    }
    s.free_events.push_back(r.event);
  }
  if (staging_ != nullptr) s.free_staging.emplace_back(staging_, staging_bytes_);
}

int DeviceCall::reserve_staging(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  Shared& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto it = s.free_staging.begin(); it != s.free_staging.end(); ++it) {
    if (it->second >= bytes) {
      staging_ = it->first;
      staging_bytes_ = it->second;
      s.free_staging.erase(it);
      return 0;
    }
  }
  // None large enough: free one of the smaller ones before allocating, so the
  // pool holds no more buffers than calls ever ran at once (pinned memory is precious).
  if (!s.free_staging.empty()) {
    backend_.host_free_pinned(s.free_staging.back().first);
    s.free_staging.pop_back();
  }
  void* p = nullptr;
  if (const int rc = backend_.host_alloc_pinned(&p, bytes); rc != 0) return rc;
  staging_ = static_cast<char*>(p);
  staging_bytes_ = bytes;
  return 0;
}

int DeviceCall::describe(const void* data, IpcDescriptor& out) {
  nbrcoll_pointer_info info{};
  if (const int rc = backend_.pointer_info(data, &info); rc != 0) return rc;
  if (info.is_device == 0) return -1;
  out.buffer_id = info.buffer_id;
  out.base = reinterpret_cast<std::uintptr_t>(info.base);
  out.size = info.size;
  out.offset = reinterpret_cast<std::uintptr_t>(data) - out.base;
  return export_handle(backend_, info, out.handle);
}

int DeviceCall::map_peer(int peer, const IpcDescriptor& d, void*& mapped) {
  return shared().imports.map(
      peer, d, [this](const nbrcoll_ipc_handle& h, void** m) { return backend_.ipc_open(&h, m); },
      [this](void* m) { return backend_.ipc_close(m); }, &mapped);
}

int DeviceCall::read_peer(int peer, const IpcDescriptor& d, void* dst, std::uint64_t bytes) {
  std::lock_guard<std::mutex> lock(shared().mutex);
  void* mapped = nullptr;
  if (const int rc = map_peer(peer, d, mapped); rc != 0) return rc;
  return to_host(dst, static_cast<const char*>(mapped) + d.offset, bytes);
}

int DeviceCall::start_copy(int peer, const IpcDescriptor& d, void* dst, std::uint64_t bytes, int token) {
  Shared& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  void* mapped = nullptr;
  int rc = map_peer(peer, d, mapped);
  if (rc != 0) return rc;
  void* stream = nullptr;
  if ((rc = stream_for(backend_, s, peer % kStreams, stream)) != 0) return rc;
  void* event = nullptr;
  if (!s.free_events.empty()) {
    event = s.free_events.back();
    s.free_events.pop_back();
  } else if ((rc = backend_.event_create(&event)) != 0) {
    return rc;
  }
  const char* src = static_cast<const char*>(mapped) + d.offset;
  rc = backend_.copy_async(dst, src, bytes, stream);
  if (rc == 0) rc = backend_.event_record(event, stream);
  if (rc != 0) {
    s.free_events.push_back(event);
    return rc;
  }
  running_.push_back({event, token});
  return 0;
}

int DeviceCall::poll(std::vector<int>& finished, std::vector<int>& failed) {
  finished.clear();
  failed.clear();
  int error = 0;
  Shared& s = shared();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (std::size_t i = 0; i < running_.size();) {
    int done = 0;
    const int rc = backend_.event_query(running_[i].event, &done);
    if (rc != 0 && error == 0) error = rc;
    if (rc != 0 || done != 0) {
      (rc == 0 ? finished : failed).push_back(running_[i].token);
      s.free_events.push_back(running_[i].event);
      running_[i] = running_.back();
      running_.pop_back();
    } else {
      ++i;
    }
  }
  return error;
}

int DeviceCall::copy_local(void* dst, const void* src, std::uint64_t bytes) {
  if (bytes == 0 || dst == src) return 0;
  void* stream = nullptr;
  int rc = 0;
  {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    if ((rc = stream_for(backend_, s, 0, stream)) != 0) return rc;
  }
  rc = backend_.copy_async(dst, src, bytes, stream);
  return rc != 0 ? rc : backend_.stream_sync(stream);
}

int DeviceCall::to_host(void* host, const void* device, std::uint64_t bytes) {
  return bytes == 0 ? 0 : backend_.copy_to_host_sync(host, device, bytes);
}

int DeviceCall::to_device(void* device, const void* host, std::uint64_t bytes) {
  return bytes == 0 ? 0 : backend_.copy_to_device_sync(device, host, bytes);
}

const char* DeviceCall::last_error() const {
  const char* e = backend_.last_error();
  return e != nullptr ? e : "unknown";
}

}  // namespace nbrcoll
