#include "transport/device/runtime_probe.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace nbrcoll {

namespace {

// The few runtime entry points we need, declared by their C ABI (no headers:
// the CPU build must not depend on a GPU toolkit).
using CuPointerGetAttribute = int (*)(void* data, int attribute, std::uint64_t ptr);
using HipPointerGetAttribute = int (*)(void* data, int attribute, void* ptr);
using HipRuntimeGetVersion = int (*)(int* version);

constexpr int kPointerAttributeMemoryType = 2;  // CU_/HIP_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr unsigned kCudaMemoryDevice = 2;       // CU_MEMORYTYPE_DEVICE
constexpr unsigned kCudaMemoryArray = 3;        // CU_MEMORYTYPE_ARRAY

struct Runtimes {
  std::atomic<CuPointerGetAttribute> cuda{nullptr};
  std::atomic<HipPointerGetAttribute> hip{nullptr};
  std::atomic<int> hip_version{0};
};

Runtimes& runtimes() {
  static Runtimes r;
  return r;
}

// A handle on the loaded object whose file name starts with one of
// `prefixes`, or nullptr. Found by walking the objects already loaded and
// opened by the exact name the loader knows them by: dlopen(RTLD_NOLOAD) of
// a bare name such as "libcuda.so.1" searches every library directory for
// it when nothing of that name is loaded (about 120 failing opens for the
// four names here, 1.5-6 ms of a process's first call).
void* loaded(const char* const* prefixes) {
  struct Find {
    const char* const* prefixes;
    std::string path;
  } find{prefixes, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& f = *static_cast<Find*>(data);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        const char* slash = std::strrchr(info->dlpi_name, '/');
        const char* base = slash != nullptr ? slash + 1 : info->dlpi_name;
        for (const char* const* p = f.prefixes; *p != nullptr; ++p) {
          if (std::strncmp(base, *p, std::strlen(*p)) == 0) {
            f.path = info->dlpi_name;
            return 1;
          }
        }
        return 0;
      },
      &find);
  return find.path.empty() ? nullptr : dlopen(find.path.c_str(), RTLD_NOW | RTLD_NOLOAD);
}

// How many objects the dynamic loader has added so far (glibc's dlpi_adds):
// unchanged means no library was loaded since we last looked.
unsigned long long loader_generation() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t size, void* data) {
        if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
          *static_cast<unsigned long long*>(data) = info->dlpi_adds;
        return 1;  // the counter is the same in every entry: stop after the first
      },
      &adds);
  return adds;
}

// Looks again only when the loader has loaded something new since the last
// look (an application may initialise its GPU runtime after its first graph),
// so a host-only process pays one loader query per call, not a walk of the
// loaded objects. Handles stay open (the runtime stays loaded).
void find_runtimes(Runtimes& r) {
  static std::atomic<unsigned long long> looked_at{~0ULL};
  if (r.cuda.load() != nullptr && r.hip.load() != nullptr) return;
  const unsigned long long generation = loader_generation();
  if (generation != 0 && looked_at.exchange(generation) == generation) return;
  if (r.cuda.load() == nullptr) {
    static const char* const kCuda[] = {"libcuda.so", nullptr};  // the driver, not libcudart
    if (void* h = loaded(kCuda)) {
      r.cuda.store(reinterpret_cast<CuPointerGetAttribute>(dlsym(h, "cuPointerGetAttribute")));
    }
  }
  if (r.hip.load() == nullptr) {
    static const char* const kHip[] = {"libamdhip64.so", nullptr};
    if (void* h = loaded(kHip)) {
      auto version = reinterpret_cast<HipRuntimeGetVersion>(dlsym(h, "hipRuntimeGetVersion"));
      int v = 0;
      if (version != nullptr) version(&v);
      r.hip_version.store(v);
      r.hip.store(reinterpret_cast<HipPointerGetAttribute>(dlsym(h, "hipPointerGetAttribute")));
    }
  }
}

bool cuda_device(CuPointerGetAttribute get, const void* p) {
  unsigned type = 0;
  // Unregistered host memory is an error (CUDA_ERROR_INVALID_VALUE): host.
  if (get(&type, kPointerAttributeMemoryType, reinterpret_cast<std::uintptr_t>(p)) != 0) return false;
  return type == kCudaMemoryDevice || type == kCudaMemoryArray;
}

bool hip_device(HipPointerGetAttribute get, int version, const void* p) {
  unsigned type = 0;
  if (get(&type, kPointerAttributeMemoryType, const_cast<void*>(p)) != 0) return false;
  // hipMemoryType changed in ROCm 6: before, Host 0 Device 1 Array 2 Unified 3
  // Managed 4; from 6.0 the CUDA values, Host 1 Device 2 Array 10 Managed 3.
  if (version >= 60000000) return type == 2 || type == 10;
  return type == 1 || type == 2;
}

}  // namespace

GpuRuntime loaded_runtime() {
  Runtimes& r = runtimes();
  find_runtimes(r);
  if (r.cuda.load() != nullptr) return GpuRuntime::kCuda;
  if (r.hip.load() != nullptr) return GpuRuntime::kHip;
  return GpuRuntime::kNone;
}

bool is_device_memory(const void* p) {
  if (p == nullptr) return false;
  Runtimes& r = runtimes();
  find_runtimes(r);
  if (auto cuda = r.cuda.load(); cuda != nullptr && cuda_device(cuda, p)) return true;
  if (auto hip = r.hip.load(); hip != nullptr && hip_device(hip, r.hip_version.load(), p)) return true;
  return false;
}

}  // namespace nbrcoll
