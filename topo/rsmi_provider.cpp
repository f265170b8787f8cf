// The real ROCm SMI SmiSource. Compiled empty-handed without ROCm SMI's
// header. The library itself (librocm_smi64) is never linked: it is opened
// at run time, so libnbrcoll loads on nodes without it (then "auto" moves on
// to hwloc). NBRCOLL_ROCM_SMI_LIB names the library to open instead of the
// usual names, or `none` to never open it.
#include "topo/providers.h"

#ifdef NBRCOLL_HAVE_ROCM_SMI
#include <dlfcn.h>
#include <rocm_smi/rocm_smi.h>

#include <cstdlib>
#include <cstring>

#include "topo/quiet_stderr.h"
#include "topo/smi_convert.h"
#endif

namespace nbrcoll::topo {

#ifdef NBRCOLL_HAVE_ROCM_SMI
namespace {

// The few entry points we use, by their C ABI (types from the header only).
struct RsmiApi {
  rsmi_status_t (*init)(std::uint64_t) = nullptr;
  rsmi_status_t (*shut_down)() = nullptr;
  rsmi_status_t (*num_monitor_devices)(std::uint32_t*) = nullptr;
  rsmi_status_t (*link_type)(std::uint32_t, std::uint32_t, std::uint64_t*, RSMI_IO_LINK_TYPE*) = nullptr;
  rsmi_status_t (*link_weight)(std::uint32_t, std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status_t (*minmax_bandwidth)(std::uint32_t, std::uint32_t, std::uint64_t*, std::uint64_t*) = nullptr;
  rsmi_status_t (*pci_id)(std::uint32_t, std::uint64_t*) = nullptr;
  rsmi_status_t (*numa_node)(std::uint32_t, std::uint32_t*) = nullptr;
};

template <class F>
bool bind(void* lib, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

// Opens the library once per process; the handle stays open (ROCm SMI keeps
// threads and state of its own). Returns nullptr with `why` set.
const RsmiApi* load_rsmi(std::string& why) {
  static std::string load_error;
  static const RsmiApi* api = []() -> const RsmiApi* {
    const char* user = std::getenv("NBRCOLL_ROCM_SMI_LIB");
    void* lib = nullptr;
    if (user != nullptr && *user != '\0') {
      if (std::strcmp(user, "none") == 0) {
        load_error = "ROCm SMI: not loaded (NBRCOLL_ROCM_SMI_LIB=none)";
        return nullptr;
      }
      lib = dlopen(user, RTLD_NOW | RTLD_LOCAL);
    } else {
      for (const char* name : {"librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
                               "librocm_smi64.so.1", "/opt/rocm/lib/librocm_smi64.so"}) {
        lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (lib != nullptr) break;
      }
    }
    if (lib == nullptr) {
      load_error = "ROCm SMI: library not found (librocm_smi64.so)";
      return nullptr;
    }
    static RsmiApi a;
    const bool ok =
        bind(lib, a.init, "rsmi_init") && bind(lib, a.shut_down, "rsmi_shut_down") &&
        bind(lib, a.num_monitor_devices, "rsmi_num_monitor_devices") &&
        bind(lib, a.link_type, "rsmi_topo_get_link_type") && bind(lib, a.link_weight, "rsmi_topo_get_link_weight") &&
        bind(lib, a.minmax_bandwidth, "rsmi_minmax_bandwidth_get") && bind(lib, a.pci_id, "rsmi_dev_pci_id_get") &&
        bind(lib, a.numa_node, "rsmi_topo_get_numa_node_number");
    if (!ok) {
      load_error = "ROCm SMI: library lacks an entry point nbrcoll needs";
      dlclose(lib);
      return nullptr;
    }
    return &a;
  }();
  if (api == nullptr) why = load_error;
  return api;
}

SmiStatus status(rsmi_status_t s) {
  if (s == RSMI_STATUS_SUCCESS) return SmiStatus::ok;
  if (s == RSMI_STATUS_NOT_SUPPORTED) return SmiStatus::not_supported;
  return SmiStatus::error;
}

std::uint32_t u(int i) {
  return static_cast<std::uint32_t>(i);
}

class RsmiSource final : public SmiSource {
 public:
  RsmiSource(const RsmiApi& api, int n) : api_(api), n_(n) {}
  int num_devices() const override { return n_; }
  SmiStatus link_type(int src, int dst, std::uint64_t& hops, SmiLinkType& type) const override {
    RSMI_IO_LINK_TYPE t = RSMI_IOLINK_TYPE_UNDEFINED;
    const SmiStatus s = status(api_.link_type(u(src), u(dst), &hops, &t));
    type = t == RSMI_IOLINK_TYPE_XGMI         ? SmiLinkType::xgmi
           : t == RSMI_IOLINK_TYPE_PCIEXPRESS ? SmiLinkType::pcie
                                              : SmiLinkType::undefined;
    return s;
  }
  SmiStatus link_weight(int src, int dst, std::uint64_t& weight) const override {
    return status(api_.link_weight(u(src), u(dst), &weight));
  }
  SmiStatus minmax_bandwidth(int src, int dst, std::uint64_t& lo, std::uint64_t& hi) const override {
    return status(api_.minmax_bandwidth(u(src), u(dst), &lo, &hi));
  }
  SmiStatus pci_id(int dev, std::uint64_t& id) const override { return status(api_.pci_id(u(dev), &id)); }
  SmiStatus numa_node(int dev, int& numa) const override {
    std::uint32_t v = 0;
    const SmiStatus s = status(api_.numa_node(u(dev), &v));
    numa = static_cast<int>(v);
    return s;
  }

 private:
  const RsmiApi& api_;
  int n_;
};

}  // namespace

bool rocm_smi_compiled() {
  return true;
}

bool rocm_smi_loadable() {
  std::string why;
  return load_rsmi(why) != nullptr;
}

bool probe_rocm_smi(NodeTopology& out, std::string& why) {
  const RsmiApi* api = load_rsmi(why);
  if (api == nullptr) return false;
  // rsmi_init prints to stderr when there is no amdgpu driver; that is the
  // normal case on CPU-only nodes and must stay quiet.
  QuietStderr quiet;
  if (api->init(0) != RSMI_STATUS_SUCCESS) {
    why = "ROCm SMI: rsmi_init failed (no amdgpu driver?)";
    return false;
  }
  std::uint32_t n = 0;
  LoadResult r;
  if (api->num_monitor_devices(&n) != RSMI_STATUS_SUCCESS || n == 0) {
    r.error = "ROCm SMI: no AMD GPUs";
  } else {
    r = topology_from_smi(RsmiSource(*api, static_cast<int>(n)));
  }
  api->shut_down();
  if (!r.error.empty()) {
    why = r.error;
    return false;
  }
  out = std::move(r.topology);
  return true;
}

#else

bool rocm_smi_compiled() {
  return false;
}

bool rocm_smi_loadable() {
  return false;
}

bool probe_rocm_smi(NodeTopology&, std::string& why) {
  why = "built without ROCm SMI";
  return false;
}

#endif

}  // namespace nbrcoll::topo
