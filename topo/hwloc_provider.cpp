// CPU-only nodes through hwloc: one "device" per NUMA node. Compiled
// empty-handed without hwloc.
#include "topo/providers.h"

#ifdef NBRCOLL_HAVE_HWLOC
#include <hwloc.h>

#include <algorithm>

#include "topo/graph.h"
#include "topo/quiet_stderr.h"
#include "topo/validate.h"
#endif

namespace nbrcoll::topo {

#ifdef NBRCOLL_HAVE_HWLOC
namespace {

// The package holding `numa`: its ancestor, else the first package whose
// cpuset meets the NUMA node's (a NUMA node attached above the packages).
// -1 when there is none (some VMs report no package).
int package_of(hwloc_topology_t topo, hwloc_obj_t numa) {
  if (hwloc_obj_t p = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, numa))
    return static_cast<int>(p->logical_index);
  if (numa->cpuset) {
    for (hwloc_obj_t p = nullptr; (p = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, p)) != nullptr;)
      if (p->cpuset && hwloc_bitmap_intersects(p->cpuset, numa->cpuset)) return static_cast<int>(p->logical_index);
  }
  return -1;
}

}  // namespace

bool hwloc_compiled() {
  return true;
}

bool probe_hwloc(NodeTopology& out, std::string& why) {
  QuietStderr quiet;  // hwloc may warn about odd firmware tables on VMs
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0) {
    why = "hwloc: init failed";
    return false;
  }
  // Only CPUs and memory matter here; skipping I/O discovery is faster.
  hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    why = "hwloc: load failed";
    return false;
  }
  const int count = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  const int n = std::clamp(count, 1, kMaxDevices);
  NodeTopology t = flat_topology(n);
  std::vector<int> pkg(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n && i < count; ++i) {
    hwloc_obj_t numa = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (!numa) continue;
    t.numa[static_cast<std::size_t>(i)] = static_cast<int>(numa->os_index);
    pkg[static_cast<std::size_t>(i)] = package_of(topo, numa);
  }
  hwloc_topology_destroy(topo);
  // Unknown packages get labels of their own, then everything is renumbered 0..
  for (std::size_t i = 0; i < pkg.size(); ++i)
    if (pkg[i] < 0) pkg[i] = kMaxDevices + static_cast<int>(i);
  t.package = normalize_labels(pkg);
  t.source = "hwloc";
  if (std::string err = validate_topology(t); !err.empty()) {
    why = "hwloc: " + err;
    return false;
  }
  out = std::move(t);
  return true;
}

#else

bool hwloc_compiled() {
  return false;
}

bool probe_hwloc(NodeTopology&, std::string& why) {
  why = "built without hwloc";
  return false;
}

#endif

}  // namespace nbrcoll::topo
