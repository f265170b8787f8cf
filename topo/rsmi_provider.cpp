// The real ROCm SMI SmiSource. Compiled empty-handed without ROCm SMI.
#include "providers.h"

#ifdef NBRCOLL_HAVE_ROCM_SMI
#include <rocm_smi/rocm_smi.h>

#include "quiet_stderr.h"
#include "smi_convert.h"
#endif

namespace nbrcoll::topo {

#ifdef NBRCOLL_HAVE_ROCM_SMI
namespace {

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
  explicit RsmiSource(int n) : n_(n) {}
  int num_devices() const override { return n_; }
  SmiStatus link_type(int src, int dst, std::uint64_t& hops, SmiLinkType& type) const override {
    RSMI_IO_LINK_TYPE t = RSMI_IOLINK_TYPE_UNDEFINED;
    const SmiStatus s = status(rsmi_topo_get_link_type(u(src), u(dst), &hops, &t));
    type = t == RSMI_IOLINK_TYPE_XGMI         ? SmiLinkType::xgmi
           : t == RSMI_IOLINK_TYPE_PCIEXPRESS ? SmiLinkType::pcie
                                              : SmiLinkType::undefined;
    return s;
  }
  SmiStatus link_weight(int src, int dst, std::uint64_t& weight) const override {
    return status(rsmi_topo_get_link_weight(u(src), u(dst), &weight));
  }
  SmiStatus minmax_bandwidth(int src, int dst, std::uint64_t& lo, std::uint64_t& hi) const override {
    return status(rsmi_minmax_bandwidth_get(u(src), u(dst), &lo, &hi));
  }
  SmiStatus pci_id(int dev, std::uint64_t& id) const override { return status(rsmi_dev_pci_id_get(u(dev), &id)); }
  SmiStatus numa_node(int dev, int& numa) const override {
    std::uint32_t v = 0;
    const SmiStatus s = status(rsmi_topo_get_numa_node_number(u(dev), &v));
    numa = static_cast<int>(v);
    return s;
  }

 private:
  int n_;
};

}  // namespace

bool rocm_smi_compiled() {
  return true;
}

bool probe_rocm_smi(NodeTopology& out, std::string& why) {
  // rsmi_init prints to stderr when there is no amdgpu driver; that is the
  // normal case on CPU-only nodes and must stay quiet.
  QuietStderr quiet;
  if (rsmi_init(0) != RSMI_STATUS_SUCCESS) {
    why = "ROCm SMI: rsmi_init failed (no amdgpu driver?)";
    return false;
  }
  std::uint32_t n = 0;
  LoadResult r;
  if (rsmi_num_monitor_devices(&n) != RSMI_STATUS_SUCCESS || n == 0) {
    r.error = "ROCm SMI: no AMD GPUs";
  } else {
    r = topology_from_smi(RsmiSource(static_cast<int>(n)));
  }
  rsmi_shut_down();
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

bool probe_rocm_smi(NodeTopology&, std::string& why) {
  why = "built without ROCm SMI";
  return false;
}

#endif

}  // namespace nbrcoll::topo
