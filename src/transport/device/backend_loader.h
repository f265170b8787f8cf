// The device backend plugin for this process, loaded on first need: the one
// named by NBRCOLL_DEVICE_BACKEND, else the one matching the GPU runtime the
// application has loaded (libnbrcoll-cuda.so / libnbrcoll-hip.so, looked up
// next to libnbrcoll first). No plugin: device buffers go to PMPI.
#pragma once

#include "transport/device/backend_abi.h"

namespace nbrcoll {

// nullptr when there is none (yet: an application may start its GPU runtime
// after its first graph, so a missing runtime is looked for again next time).
const nbrcoll_device_backend* device_backend();

enum class BufferKind {
  kHost,               // the CPU can address it: the host path
  kDevice,             // device memory the plugin knows: the device path
  kDeviceUnsupported,  // the runtime calls it device memory, but no plugin is loaded
};

// What `p` is; `info` is filled for kDevice.
BufferKind classify_buffer(const void* p, nbrcoll_pointer_info& info);

// A process with a GPU runtime loaded (or a device backend named in
// NBRCOLL_DEVICE_BACKEND): its calls take the device transport. A
// host-only process pays one loader query per call.
bool device_process();

}  // namespace nbrcoll
