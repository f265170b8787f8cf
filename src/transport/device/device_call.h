// The device side of one call whose buffers are device memory: the runtime
// work the device transport asks for, on process-wide resources (IPC caches, a few
// streams, an event pool, pinned staging buffers) that live as long as the
// process. The engine and transport keep the order of things; this does the GPU part.
#pragma once

#include <cstdint>
#include <vector>

#include "transport/device/backend_abi.h"
#include "transport/device/ipc_cache.h"

namespace nbrcoll {

// Does the MPI move device buffers itself (GPU-aware)? NBRCOLL_GPU_AWARE, else
// MPIX_Query_cuda_support / MPIX_Query_rocm_support where the MPI has them.
bool mpi_is_gpu_aware(const nbrcoll_device_backend& backend);

// Can the allocation holding `p` be exported by IPC? (Memory from stream-
// ordered pools or the VMM API cannot be, with the legacy IPC calls.) The
// handle is cached, so this costs one lookup after the first call.
bool can_export(const nbrcoll_device_backend& backend, const void* p);

class DeviceCall {
 public:
  explicit DeviceCall(const nbrcoll_device_backend& backend) : backend_(backend) {}
  DeviceCall(const DeviceCall&) = delete;
  DeviceCall& operator=(const DeviceCall&) = delete;
  ~DeviceCall();  // waits for copies still running, returns the call's resources

  // Pinned host memory for staged fragments, valid until the call ends. 0 or an error.
  int reserve_staging(std::uint64_t bytes);
  [[nodiscard]] char* staging() const { return staging_; }

  // Sender: describe the device bytes at `data` for a peer on this node.
  int describe(const void* data, IpcDescriptor& out);
  // Receiver: start copying `bytes` from the peer's memory `d` names into
  // `dst`, on the stream for `peer`. `token` comes back from poll() when done.
  int start_copy(int peer, const IpcDescriptor& d, void* dst, std::uint64_t bytes, int token);
  // Receiver with a host destination: copy `bytes` from the peer's memory
  // `d` names into host memory `dst`, at once.
  int read_peer(int peer, const IpcDescriptor& d, void* dst, std::uint64_t bytes);
  // Tokens of copies finished since the last poll, and of those that
  // failed (their bytes are not in place). 0 or the first error.
  int poll(std::vector<int>& finished, std::vector<int>& failed);
  [[nodiscard]] bool copies_running() const { return !running_.empty(); }

  // Synchronous copies: within the device, and to and from staging.
  int copy_local(void* dst, const void* src, std::uint64_t bytes);
  int to_host(void* host, const void* device, std::uint64_t bytes);
  int to_device(void* device, const void* host, std::uint64_t bytes);

  [[nodiscard]] const char* last_error() const;

 private:
  struct Running {
    void* event;
    int token;
  };
  // The local address of the peer allocation `d` names (import cache). Caller holds the mutex.
  int map_peer(int peer, const IpcDescriptor& d, void*& mapped);

  const nbrcoll_device_backend& backend_;
  char* staging_ = nullptr;
  std::uint64_t staging_bytes_ = 0;
  std::vector<Running> running_;
};

}  // namespace nbrcoll
