#include "transport/device/backend_loader.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>

#include "support/config.h"
#include "support/log.h"
#include "transport/device/open_backend.h"
#include "transport/device/runtime_probe.h"

namespace nbrcoll {

namespace {

// The directory libnbrcoll itself was loaded from, with a trailing slash ("" if unknown).
std::string own_directory() {
  Dl_info where{};
  if (dladdr(reinterpret_cast<void*>(&device_backend), &where) == 0 || where.dli_fname == nullptr) return "";
  const std::string path = where.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

const nbrcoll_device_backend* open_plugin(const std::string& path) {
  const nbrcoll_gpu::OpenedBackend b = nbrcoll_gpu::open_backend(path);
  if (b.table == nullptr) {
    // Not there is normal (no such plugin built); there but unusable is worth a warning.
    log(b.loaded ? LogLevel::kWarn : LogLevel::kInfo, "device backend not used: %s", b.error.c_str());
    return nullptr;
  }
  log(LogLevel::kInfo, "device backend '%s' loaded from %s", b.table->name, path.c_str());
  return b.table;
}

// Next to libnbrcoll first, then the loader's search path.
const nbrcoll_device_backend* open_named_plugin(const char* file) {
  if (const std::string dir = own_directory(); !dir.empty()) {
    if (const nbrcoll_device_backend* b = open_plugin(dir + file)) return b;
  }
  return open_plugin(file);
}

struct Loader {
  std::mutex mutex;
  std::atomic<const nbrcoll_device_backend*> backend{nullptr};
  bool settled = false;  // an explicit choice was made, or a plugin for the loaded runtime was tried
};

Loader& loader() {
  static Loader l;
  return l;
}

}  // namespace

const nbrcoll_device_backend* device_backend() {
  Loader& l = loader();
  if (const nbrcoll_device_backend* b = l.backend.load(std::memory_order_acquire)) return b;
  std::lock_guard<std::mutex> lock(l.mutex);
  if (l.settled) return l.backend.load();
  const std::string& wanted = config().device_backend;
  const nbrcoll_device_backend* found = nullptr;
  if (wanted == "none") {
    l.settled = true;
  } else if (!wanted.empty()) {
    found = open_plugin(wanted);
    // Asked for by name: not finding it is worth a warning, not an info line.
    if (found == nullptr)
      log(LogLevel::kWarn, "NBRCOLL_DEVICE_BACKEND=%s cannot be used: device buffers go to the MPI", wanted.c_str());
    l.settled = true;
  } else {
    switch (loaded_runtime()) {
      case GpuRuntime::kCuda:
        found = open_named_plugin("libnbrcoll-cuda.so");
        l.settled = true;
        break;
      case GpuRuntime::kHip:
        found = open_named_plugin("libnbrcoll-hip.so");
        l.settled = true;
        break;
      case GpuRuntime::kNone:
        break;  // look again next time
    }
  }
  l.backend.store(found, std::memory_order_release);
  return found;
}

BufferKind classify_buffer(const void* p, nbrcoll_pointer_info& info) {
  info = {};
  if (p == nullptr) return BufferKind::kHost;
  if (const nbrcoll_device_backend* b = device_backend()) {
    if (b->pointer_info(p, &info) != 0) return BufferKind::kDeviceUnsupported;  // the runtime could not tell
    return info.is_device != 0 ? BufferKind::kDevice : BufferKind::kHost;
  }
  return is_device_memory(p) ? BufferKind::kDeviceUnsupported : BufferKind::kHost;
}

// Without a loaded GPU runtime only a backend named in NBRCOLL_DEVICE_BACKEND
// can be there (device_backend() opens none otherwise).
bool device_process() {
  if (loaded_runtime() != GpuRuntime::kNone) return true;
  return !config().device_backend.empty() && device_backend() != nullptr;
}

}  // namespace nbrcoll
