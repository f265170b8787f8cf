// Everything the CUDA and HIP plugins share, written once in gpu_runtime.h's
// names: error text, the ABI functions, the copy launch, the table and the
// exported entry point. cuda_backend.cu and hip_backend.hip.cpp include it
// once each and define backend_pointer_info(), the one runtime-specific part.
#pragma once

#include <stdio.h>
#include <string.h>

#include <atomic>
#include <mutex>

#include "transport/device/backend_abi.h"
#include "transport/device/gpu/copy_kernel.h"
#include "transport/device/gpu/gpu_runtime.h"

namespace nbrcoll_gpu {
namespace {

thread_local char t_error[256] = "no error";

int set_error(const char* what, const char* why) {
  snprintf(t_error, sizeof t_error, "%s: %s: %s", GPU_BACKEND_NAME, what, why);
  return -1;
}

// A runtime call of ours failed: record why and clear the runtime's last
// error (it is ours), so the application's own error checks do not see it.
int fail(const char* what, GPU(Error_t) err) {
  (void)GPU(GetLastError)();
  snprintf(t_error, sizeof t_error, "%s: %s failed: %s (%s)", GPU_BACKEND_NAME, what, GPU(GetErrorName)(err),
           GPU(GetErrorString)(err));
  return static_cast<int>(err) != 0 ? static_cast<int>(err) : -1;
}

// Return from the calling function with fail() unless `expr` succeeds.
#define NBRCOLL_GPU_CHECK(what, expr)                              \
  do {                                                             \
    const GPU(Error_t) check_err_ = (expr);                        \
    if (check_err_ != GPU(Success)) return fail(what, check_err_); \
  } while (0)
#define NBRCOLL_GPU_CALL(name, args) NBRCOLL_GPU_CHECK(GPU_NAME(name), GPU(name) args)

int backend_pointer_info(const void* p, nbrcoll_pointer_info* out);  // per runtime, after this file

// Per-device state, filled on first use: SM (CU) count and the stream the
// *_sync copies use (non-blocking, so they wait for no application work).
constexpr int kMaxDevices = 256;
std::atomic<int> g_sm_count[kMaxDevices];
GPU(Stream_t) g_sync_stream[kMaxDevices];
std::mutex g_sync_stream_mutex;

int current_device_checked(int* dev) {
  NBRCOLL_GPU_CALL(GetDevice, (dev));
  if (*dev < 0 || *dev >= kMaxDevices) return set_error("device", "ordinal beyond the plugin's table");
  return 0;
}

int sm_count(int dev, int* out) {
  int n = g_sm_count[dev].load(std::memory_order_relaxed);
  if (n <= 0) {
    NBRCOLL_GPU_CALL(DeviceGetAttribute, (&n, GPU_ATTR_SM_COUNT, dev));
    if (n <= 0) n = 1;
    g_sm_count[dev].store(n, std::memory_order_relaxed);
  }
  *out = n;
  return 0;
}

int copy_sync(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return 0;
  int dev = 0;
  if (int rc = current_device_checked(&dev)) return rc;
  GPU(Stream_t) s = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_sync_stream_mutex);
    if (g_sync_stream[dev] == nullptr) {
      NBRCOLL_GPU_CALL(StreamCreateWithFlags, (&g_sync_stream[dev], GPU(StreamNonBlocking)));
    }
    s = g_sync_stream[dev];
  }
  NBRCOLL_GPU_CALL(MemcpyAsync, (dst, src, bytes, GPU(MemcpyDefault), s));
  NBRCOLL_GPU_CALL(StreamSynchronize, (s));
  return 0;
}

// ---- the ABI functions ----

int pci_bus_id(int device, char* out, int len) {
  NBRCOLL_GPU_CALL(DeviceGetPCIBusId, (out, len, device));
  return 0;
}

int current_device(int* device) {
  NBRCOLL_GPU_CALL(GetDevice, (device));
  return 0;
}

int ipc_get(void* base, nbrcoll_ipc_handle* out) {
  static_assert(sizeof(GPU(IpcMemHandle_t)) <= sizeof(out->bytes), "IPC handle does not fit the ABI");
  GPU(IpcMemHandle_t) h;
  NBRCOLL_GPU_CALL(IpcGetMemHandle, (&h, base));
  memset(out->bytes, 0, sizeof out->bytes);
  memcpy(out->bytes, &h, sizeof h);
  return 0;
}

int ipc_open(const nbrcoll_ipc_handle* handle, void** base) {
  GPU(IpcMemHandle_t) h;
  memcpy(&h, handle->bytes, sizeof h);
  NBRCOLL_GPU_CALL(IpcOpenMemHandle, (base, h, GPU(IpcMemLazyEnablePeerAccess)));
  return 0;
}

int ipc_close(void* base) {
  NBRCOLL_GPU_CALL(IpcCloseMemHandle, (base));
  return 0;
}

int stream_create(void** stream) {
  GPU(Stream_t) s = nullptr;
  NBRCOLL_GPU_CALL(StreamCreateWithFlags, (&s, GPU(StreamNonBlocking)));
  *stream = s;
  return 0;
}

int stream_destroy(void* stream) {
  NBRCOLL_GPU_CALL(StreamDestroy, (static_cast<GPU(Stream_t)>(stream)));
  return 0;
}

int event_create(void** event) {
  GPU(Event_t) e = nullptr;
  NBRCOLL_GPU_CALL(EventCreateWithFlags, (&e, GPU(EventDisableTiming)));
  *event = e;
  return 0;
}

int event_destroy(void* event) {
  NBRCOLL_GPU_CALL(EventDestroy, (static_cast<GPU(Event_t)>(event)));
  return 0;
}

int event_record(void* event, void* stream) {
  NBRCOLL_GPU_CALL(EventRecord, (static_cast<GPU(Event_t)>(event), static_cast<GPU(Stream_t)>(stream)));
  return 0;
}

int event_query(void* event, int* done) {
  const GPU(Error_t) err = GPU(EventQuery)(static_cast<GPU(Event_t)>(event));
  if (err == GPU(Success)) {
    *done = 1;
    return 0;
  }
  if (err == GPU(ErrorNotReady)) {
    // Not a failure. Some runtimes (HIP) record it as the last error: clear it then.
    if (GPU(PeekAtLastError)() == GPU(ErrorNotReady)) (void)GPU(GetLastError)();
    *done = 0;
    return 0;
  }
  return fail(GPU_NAME(EventQuery), err);
}

int copy_async(void* dst, const void* src, size_t bytes, void* stream) {
  if (bytes == 0) return 0;
  if (dst == nullptr || src == nullptr) return set_error("copy_async", "null pointer");
  int dev = 0, sms = 0;
  if (int rc = current_device_checked(&dev)) return rc;
  if (int rc = sm_count(dev, &sms)) return rc;
  const CopyPlan plan = plan_copy(dst, src, bytes);
  const unsigned blocks = copy_blocks(plan.nvec, 4u * static_cast<unsigned>(sms));
  copy_kernel<<<blocks, kCopyThreads, 0, static_cast<GPU(Stream_t)>(stream)>>>(plan);
  NBRCOLL_GPU_CALL(GetLastError, ());  // launch errors
  return 0;
}

int stream_sync(void* stream) {
  NBRCOLL_GPU_CALL(StreamSynchronize, (static_cast<GPU(Stream_t)>(stream)));
  return 0;
}

int host_alloc_pinned(void** p, size_t bytes) {
  NBRCOLL_GPU_CHECK(GPU_HOST_ALLOC_NAME, GPU_HOST_ALLOC(p, bytes));
  return 0;
}

int host_free_pinned(void* p) {
  NBRCOLL_GPU_CHECK(GPU_HOST_FREE_NAME, GPU_HOST_FREE(p));
  return 0;
}

const char* last_error() {
  return t_error;
}

int device_count(int* count) {
  NBRCOLL_GPU_CALL(GetDeviceCount, (count));
  return 0;
}

int set_device(int device) {
  NBRCOLL_GPU_CALL(SetDevice, (device));
  return 0;
}

int device_malloc(void** p, size_t bytes) {
  NBRCOLL_GPU_CALL(Malloc, (p, bytes));
  return 0;
}

int device_free(void* p) {
  NBRCOLL_GPU_CALL(Free, (p));
  return 0;
}

nbrcoll_device_backend make_table() {
  nbrcoll_device_backend t{};
  t.abi_version = NBRCOLL_DEVICE_ABI_VERSION;
  t.name = GPU_BACKEND_NAME;
  t.pointer_info = backend_pointer_info;
  t.pci_bus_id = pci_bus_id;
  t.current_device = current_device;
  t.ipc_get = ipc_get;
  t.ipc_open = ipc_open;
  t.ipc_close = ipc_close;
  t.stream_create = stream_create;
  t.stream_destroy = stream_destroy;
  t.event_create = event_create;
  t.event_destroy = event_destroy;
  t.event_record = event_record;
  t.event_query = event_query;
  t.copy_async = copy_async;
  t.stream_sync = stream_sync;
  t.copy_to_host_sync = copy_sync;
  t.copy_to_device_sync = copy_sync;
  t.host_alloc_pinned = host_alloc_pinned;
  t.host_free_pinned = host_free_pinned;
  t.last_error = last_error;
  t.device_count = device_count;
  t.set_device = set_device;
  t.device_malloc = device_malloc;
  t.device_free = device_free;
  t.runtime_copy_sync = copy_sync;
  return t;
}

}  // namespace
}  // namespace nbrcoll_gpu

extern "C" __attribute__((visibility("default"))) const nbrcoll_device_backend* nbrcoll_device_backend_v1(void) {
  static const nbrcoll_device_backend table = nbrcoll_gpu::make_table();
  return &table;
}
