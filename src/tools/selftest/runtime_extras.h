// What the self-test needs of the GPU runtime beyond the plugin's C ABI:
// managed memory, stream-ordered pool memory (cudaMallocAsync /
// hipMallocAsync) and CUDA VMM memory, to check how the plugin classifies
// them and how nbrcoll moves them; the runtime and driver versions, device
// names and peer access for the report. Found at run time in the runtime
// library the plugin itself loaded (its link map, dlsym), so the tool links
// no GPU runtime, as libnbrcoll does not. The fake backend has none of these.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "tests/device_checks/device_collective.h"
#include "transport/device/backend_abi.h"

namespace selftest {

struct MemoryKind {
  nbrcoll_check::Allocator allocator;  // alloc empty: not available here
  std::string why_not;                 // ... and why
  // The runtime's words for the last failed allocation.
  std::shared_ptr<std::string> error = std::make_shared<std::string>();
  [[nodiscard]] bool available() const { return static_cast<bool>(allocator.alloc); }
};

struct RuntimeExtras {
  std::string library;                                 // the runtime library's path ("" when none was found)
  std::string versions;                                // "CUDA runtime 13000, driver 13000"
  MemoryKind managed;                                  // cudaMallocManaged / hipMallocManaged
  MemoryKind pool;                                     // cudaMallocAsync / hipMallocAsync on the null stream
  MemoryKind vmm;                                      // cuMemCreate + cuMemMap (CUDA, where built with its header)
  std::function<std::string(int device)> device_name;  // may be empty
  std::function<int(int device, int peer)> can_access_peer;  // 1, 0, or -1 unknown; may be empty
};

// `plugin_handle`: the plugin's dlopen handle (its link map names the
// runtime library it loaded).
RuntimeExtras find_runtime_extras(const nbrcoll_device_backend& g, void* plugin_handle);

}  // namespace selftest
