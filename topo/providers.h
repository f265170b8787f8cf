// Probes of the machine we run on. Each returns true and fills `out` when it
// found a topology, else false with `why` set (a quiet reason: "auto" moves
// on to the next provider). None writes to stdout or stderr.
#pragma once

#include <string>

#include "node_topology.h"

namespace nbrcoll::topo {

// ROCm SMI (built with NBRCOLL_HAVE_ROCM_SMI): the AMD GPUs of this node.
bool rocm_smi_compiled();
bool probe_rocm_smi(NodeTopology& out, std::string& why);

// hwloc (built with NBRCOLL_HAVE_HWLOC), for CPU-only nodes: devices = NUMA
// nodes, package = the socket of each, hops 1 between NUMA nodes, no links.
bool hwloc_compiled();
bool probe_hwloc(NodeTopology& out, std::string& why);

}  // namespace nbrcoll::topo
