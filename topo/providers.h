// Probes of the machine we run on. Each returns true and fills `out` when it
// found a topology, else false with `why` set (a quiet reason: "auto" moves
// on to the next provider). None writes to stdout or stderr.
#pragma once

#include <string>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

// ROCm SMI (built with NBRCOLL_HAVE_ROCM_SMI, from its header only): the AMD
// GPUs of this node. librocm_smi64 is opened at run time (dlopen), never
// linked; NBRCOLL_ROCM_SMI_LIB names it, or `none`.
bool rocm_smi_compiled();
// Compiled in and the library could be opened (opens it once).
bool rocm_smi_loadable();
bool probe_rocm_smi(NodeTopology& out, std::string& why);

// hwloc (built with NBRCOLL_HAVE_HWLOC), for CPU-only nodes: devices = NUMA
// nodes, package = the socket of each, hops 1 between NUMA nodes, no links.
bool hwloc_compiled();
bool probe_hwloc(NodeTopology& out, std::string& why);

}  // namespace nbrcoll::topo
