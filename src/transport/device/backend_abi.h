/* The table a device backend plugin gives libnbrcoll. A plain C ABI so that
 * libnbrcoll itself links no GPU runtime: it dlopens libnbrcoll-cuda.so or
 * libnbrcoll-hip.so (or NBRCOLL_DEVICE_BACKEND) only when the application has
 * a GPU runtime loaded, and talks to it through this table alone.
 *
 * Every function returns 0 on success and nonzero on failure (then
 * last_error() says why). Copies are stream ordered unless named *_sync. */
#ifndef NBRCOLL_DEVICE_BACKEND_ABI_H
#define NBRCOLL_DEVICE_BACKEND_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NBRCOLL_DEVICE_ABI_VERSION 1
#define NBRCOLL_IPC_HANDLE_BYTES 64

typedef struct nbrcoll_ipc_handle {
  unsigned char bytes[NBRCOLL_IPC_HANDLE_BYTES];
} nbrcoll_ipc_handle;

typedef struct nbrcoll_pointer_info {
  int is_device;      /* 1: device memory the CPU cannot address; 0: host (also unregistered host) */
  int device;         /* owning device's ordinal in this process (is_device only) */
  uint64_t buffer_id; /* unique per allocation for the life of the process: a freed and
                         reallocated range gets a new id (is_device only) */
  void* base;         /* start of the allocation holding the pointer (is_device only) */
  size_t size;        /* bytes of that allocation (is_device only) */
} nbrcoll_pointer_info;

typedef struct nbrcoll_device_backend {
  int abi_version; /* NBRCOLL_DEVICE_ABI_VERSION */
  const char* name;

  /* -- used by libnbrcoll -- */
  int (*pointer_info)(const void* p, nbrcoll_pointer_info* out);
  int (*pci_bus_id)(int device, char* out, int len);
  int (*current_device)(int* device);
  int (*ipc_get)(void* base, nbrcoll_ipc_handle* out);
  int (*ipc_open)(const nbrcoll_ipc_handle* handle, void** base); /* maps another process's allocation */
  int (*ipc_close)(void* base);
  int (*stream_create)(void** stream); /* on the current device */
  int (*stream_destroy)(void* stream);
  int (*event_create)(void** event);
  int (*event_destroy)(void* event);
  int (*event_record)(void* event, void* stream);
  int (*event_query)(void* event, int* done); /* done = 1 once all work before the record finished */
  /* The library's own copy kernel: vectorised, several blocks, any size and
   * alignment; src or dst may be IPC-mapped peer memory. */
  int (*copy_async)(void* dst, const void* src, size_t bytes, void* stream);
  int (*stream_sync)(void* stream);
  int (*copy_to_host_sync)(void* host, const void* device, size_t bytes);
  int (*copy_to_device_sync)(void* device, const void* host, size_t bytes);
  int (*host_alloc_pinned)(void** p, size_t bytes);
  int (*host_free_pinned)(void* p);
  const char* (*last_error)(void);

  /* -- used by tests and benchmarks -- */
  int (*device_count)(int* count);
  int (*set_device)(int device);
  int (*device_malloc)(void** p, size_t bytes);
  int (*device_free)(void* p);
  int (*runtime_copy_sync)(void* dst, const void* src, size_t bytes); /* the runtime's own D2D copy */
} nbrcoll_device_backend;

/* Every plugin exports this one symbol. */
typedef const nbrcoll_device_backend* (*nbrcoll_device_backend_entry)(void);
#define NBRCOLL_DEVICE_BACKEND_ENTRY "nbrcoll_device_backend_v1"

#ifdef __cplusplus
}
#endif

#endif
