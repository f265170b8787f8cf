#include "tools/selftest/runtime_extras.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#ifdef NBRCOLL_SELFTEST_CUDA_VMM
#include <cuda.h>  // types only: the functions come from the loaded driver by name
#endif

namespace selftest {

namespace {

// The path of a library already loaded into this process whose file name
// starts with `stem` ("libcudart.so"), found in the link map of `handle`.
std::string loaded_library(void* handle, const char* stem) {
  link_map* map = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return "";
  while (map->l_prev != nullptr) map = map->l_prev;
  for (; map != nullptr; map = map->l_next) {
    const char* path = map->l_name != nullptr ? map->l_name : "";
    const char* slash = std::strrchr(path, '/');
    const char* base = slash != nullptr ? slash + 1 : path;
    if (std::strncmp(base, stem, std::strlen(stem)) == 0) return path;
  }
  return "";
}

template <typename F>
F symbol(void* lib, const std::string& name) {
  return lib == nullptr ? nullptr : reinterpret_cast<F>(dlsym(lib, name.c_str()));
}

// The runtime API names the self-test uses, with "cuda" or "hip" in front.
struct Runtime {
  using Alloc = int (*)(void**, std::size_t, unsigned);
  using AllocAsync = int (*)(void**, std::size_t, void*);
  using FreeAsync = int (*)(void*, void*);
  using Sync = int (*)(void*);
  using Free = int (*)(void*);
  using Version = int (*)(int*);
  using CanAccess = int (*)(int*, int, int);
  using LastError = int (*)();
  using ErrorString = const char* (*)(int);

  Alloc malloc_managed = nullptr;
  AllocAsync malloc_async = nullptr;
  FreeAsync free_async = nullptr;
  Sync stream_sync = nullptr;
  Free free = nullptr;
  Version runtime_version = nullptr;
  Version driver_version = nullptr;
  CanAccess can_access_peer = nullptr;
  LastError last_error = nullptr;
  ErrorString error_string = nullptr;

  Runtime(void* lib, const std::string& prefix)
      : malloc_managed(symbol<Alloc>(lib, prefix + "MallocManaged")),
        malloc_async(symbol<AllocAsync>(lib, prefix + "MallocAsync")),
        free_async(symbol<FreeAsync>(lib, prefix + "FreeAsync")),
        stream_sync(symbol<Sync>(lib, prefix + "StreamSynchronize")),
        free(symbol<Free>(lib, prefix + "Free")),
        runtime_version(symbol<Version>(lib, prefix + "RuntimeGetVersion")),
        driver_version(symbol<Version>(lib, prefix + "DriverGetVersion")),
        can_access_peer(symbol<CanAccess>(lib, prefix + "DeviceCanAccessPeer")),
        last_error(symbol<LastError>(lib, prefix + "GetLastError")),
        error_string(symbol<ErrorString>(lib, prefix + "GetErrorString")) {}

  // A failed call of ours: clear the runtime's last error (the plugin checks
  // it after each kernel launch) and keep its text for the allocator's caller.
  int failed(int rc, const char* what, std::string& error) const {
    if (last_error != nullptr) last_error();
    error = std::string(what) + ": " + (error_string != nullptr ? error_string(rc) : std::to_string(rc));
    return rc;
  }
};

std::string version_text(const std::string& name, Runtime::Version fn) {
  int v = 0;
  if (fn == nullptr || fn(&v) != 0) return name + " ?";
  return name + " " + std::to_string(v);
}

#ifdef NBRCOLL_SELFTEST_CUDA_VMM
// Device memory from the CUDA driver's virtual memory management API: an
// address range reserved, physical memory created and mapped, read-write
// access for this device. The legacy IPC calls cannot export it.
MemoryKind vmm_memory(const nbrcoll_device_backend& g) {
  MemoryKind kind;
  void* drv = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
  const auto granularity = symbol<decltype(&cuMemGetAllocationGranularity)>(drv, "cuMemGetAllocationGranularity");
  const auto reserve = symbol<decltype(&cuMemAddressReserve)>(drv, "cuMemAddressReserve");
  const auto create = symbol<decltype(&cuMemCreate)>(drv, "cuMemCreate");
  const auto map = symbol<decltype(&cuMemMap)>(drv, "cuMemMap");
  const auto access = symbol<decltype(&cuMemSetAccess)>(drv, "cuMemSetAccess");
  const auto unmap = symbol<decltype(&cuMemUnmap)>(drv, "cuMemUnmap");
  const auto release = symbol<decltype(&cuMemRelease)>(drv, "cuMemRelease");
  const auto address_free = symbol<decltype(&cuMemAddressFree)>(drv, "cuMemAddressFree");
  if (granularity == nullptr || reserve == nullptr || create == nullptr || map == nullptr || access == nullptr ||
      unmap == nullptr || release == nullptr || address_free == nullptr) {
    kind.why_not = "the CUDA driver's VMM functions were not found (libcuda.so.1 not loaded?)";
    return kind;
  }
  struct Mapping {
    std::size_t size;
    CUmemGenericAllocationHandle handle;
  };
  auto mappings = std::make_shared<std::map<void*, Mapping>>();
  auto mutex = std::make_shared<std::mutex>();
  const nbrcoll_device_backend* dev = &g;
  kind.allocator.name = "VMM (cuMemCreate + cuMemMap)";
  kind.allocator.alloc = [=, error = kind.error](void** p, std::size_t bytes) -> int {
    *error = "a VMM call failed";
    int ordinal = 0;
    if (dev->current_device(&ordinal) != 0) return 1;
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    std::size_t step = 0;
    if (granularity(&step, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || step == 0) return 1;
    const std::size_t size = (bytes + step - 1) / step * step;
    CUdeviceptr ptr = 0;
    CUmemGenericAllocationHandle handle = 0;
    if (reserve(&ptr, size, 0, 0, 0) != CUDA_SUCCESS) return 1;
    if (create(&handle, size, &prop, 0) != CUDA_SUCCESS) {
      address_free(ptr, size);
      return 1;
    }
    CUmemAccessDesc rw{};
    rw.location = prop.location;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (map(ptr, size, 0, handle, 0) != CUDA_SUCCESS || access(ptr, size, &rw, 1) != CUDA_SUCCESS) {
      unmap(ptr, size);
      release(handle);
      address_free(ptr, size);
      return 1;
    }
    *p = reinterpret_cast<void*>(ptr);  // NOLINT(performance-no-int-to-ptr): the driver's addresses are integers
    const std::lock_guard<std::mutex> lock(*mutex);
    (*mappings)[*p] = {size, handle};
    return 0;
  };
  kind.allocator.free = [=](void* p) -> int {
    Mapping m{};
    {
      const std::lock_guard<std::mutex> lock(*mutex);
      auto it = mappings->find(p);
      if (it == mappings->end()) return 1;
      m = it->second;
      mappings->erase(it);
    }
    const auto ptr = reinterpret_cast<CUdeviceptr>(p);
    const bool ok = unmap(ptr, m.size) == CUDA_SUCCESS && release(m.handle) == CUDA_SUCCESS &&
                    address_free(ptr, m.size) == CUDA_SUCCESS;
    return ok ? 0 : 1;
  };
  return kind;
}
#endif

}  // namespace

RuntimeExtras find_runtime_extras(const nbrcoll_device_backend& g, void* plugin_handle) {
  RuntimeExtras x;
  const std::string name = g.name != nullptr ? g.name : "";
  const bool cuda = name == "cuda";
  if (!cuda && name != "hip") {
    const std::string none = "the " + name + " backend has no GPU runtime behind it";
    x.managed.why_not = x.pool.why_not = x.vmm.why_not = none;
    return x;
  }
  const std::string prefix = cuda ? "cuda" : "hip";
  x.library = loaded_library(plugin_handle, cuda ? "libcudart.so" : "libamdhip64.so");
  void* lib = x.library.empty() ? nullptr : dlopen(x.library.c_str(), RTLD_NOLOAD | RTLD_LAZY);
  if (lib == nullptr) {
    x.managed.why_not = x.pool.why_not = x.vmm.why_not = "the plugin's " + prefix + " runtime library was not found";
    return x;
  }
  const auto rt = std::make_shared<Runtime>(lib, prefix);
  const std::string label = cuda ? "CUDA" : "HIP";
  x.versions =
      version_text(label + " runtime", rt->runtime_version) + ", " + version_text("driver", rt->driver_version);

  if (rt->malloc_managed != nullptr && rt->free != nullptr) {
    x.managed.allocator = {prefix + "MallocManaged",
                           [rt, error = x.managed.error](void** p, std::size_t n) {
                             const int rc =
                                 rt->malloc_managed(p, n, 1u);  // cudaMemAttachGlobal = hipMemAttachGlobal = 1
                             return rc == 0 ? 0 : rt->failed(rc, "MallocManaged", *error);
                           },
                           [rt](void* p) { return rt->free(p); }};
  } else {
    x.managed.why_not = prefix + "MallocManaged not found";
  }
  if (rt->malloc_async != nullptr && rt->free_async != nullptr && rt->stream_sync != nullptr) {
    x.pool.allocator = {prefix + "MallocAsync",
                        [rt, error = x.pool.error](void** p, std::size_t n) {
                          int rc = rt->malloc_async(p, n, nullptr);  // the device's default pool, null stream
                          if (rc == 0) rc = rt->stream_sync(nullptr);
                          return rc == 0 ? 0 : rt->failed(rc, "MallocAsync", *error);
                        },
                        [rt](void* p) {
                          const int rc = rt->free_async(p, nullptr);
                          return rc != 0 ? rc : rt->stream_sync(nullptr);
                        }};
  } else {
    x.pool.why_not = prefix + "MallocAsync not found (a runtime without stream-ordered allocation)";
  }
#ifdef NBRCOLL_SELFTEST_CUDA_VMM
  if (cuda) x.vmm = vmm_memory(g);
#endif
  if (!x.vmm.available() && x.vmm.why_not.empty())
    x.vmm.why_not = cuda ? "built without the CUDA headers" : "not checked for HIP";
  if (rt->can_access_peer != nullptr) {
    x.can_access_peer = [rt](int device, int peer) {
      int can = 0;
      return rt->can_access_peer(&can, device, peer) == 0 ? can : -1;
    };
  }
  if (cuda) {
    void* drv = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
    using Get = int (*)(int*, int);
    using Name = int (*)(char*, int, int);
    const auto get = symbol<Get>(drv, "cuDeviceGet");
    const auto dev_name = symbol<Name>(drv, "cuDeviceGetName");
    if (get != nullptr && dev_name != nullptr) {
      x.device_name = [get, dev_name](int ordinal) {
        int dev = 0;
        char text[256] = {};
        if (get(&dev, ordinal) != 0 || dev_name(text, sizeof text, dev) != 0) return std::string("?");
        return std::string(text);
      };
    }
  } else {
    using Name = int (*)(char*, int, int);
    const auto dev_name = symbol<Name>(lib, "hipDeviceGetName");
    if (dev_name != nullptr) {
      x.device_name = [dev_name](int ordinal) {
        char text[256] = {};
        return dev_name(text, sizeof text, ordinal) == 0 ? std::string(text) : std::string("?");
      };
    }
  }
  return x;
}

}  // namespace selftest
