// Opens a device backend plugin by path: dlopen, look up the entry point,
// check the ABI version. One opener for libnbrcoll's loader, the tests and
// the benchmarks. Plain C++, header only.
#pragma once

#include <dlfcn.h>

#include <string>

#include "transport/device/backend_abi.h"

namespace nbrcoll_gpu {

struct OpenedBackend {
  const nbrcoll_device_backend* table = nullptr;  // nullptr: see error
  bool loaded = false;                            // dlopen worked (the error is then the plugin's fault)
  void* handle = nullptr;                         // the dlopen handle (stays open for the process's life)
  std::string error;
};

inline OpenedBackend open_backend(const std::string& path) {
  OpenedBackend b;
  if (path.empty()) {
    b.error = "no plugin path given";
    return b;
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    b.error = "cannot load " + path + ": " + (why != nullptr ? why : "?");
    return b;
  }
  b.loaded = true;
  b.handle = handle;
  auto entry = reinterpret_cast<nbrcoll_device_backend_entry>(dlsym(handle, NBRCOLL_DEVICE_BACKEND_ENTRY));
  if (entry == nullptr) {
    b.error = path + " has no " NBRCOLL_DEVICE_BACKEND_ENTRY;
    return b;
  }
  const nbrcoll_device_backend* table = entry();
  if (table == nullptr || table->abi_version != NBRCOLL_DEVICE_ABI_VERSION) {
    b.error = path + ": no table of ABI version " + std::to_string(NBRCOLL_DEVICE_ABI_VERSION);
    dlclose(handle);
    b.handle = nullptr;
    return b;
  }
  b.table = table;
  return b;
}

}  // namespace nbrcoll_gpu
