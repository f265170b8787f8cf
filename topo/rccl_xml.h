// Reader for NCCL / RCCL topology XML (NCCL_TOPO_FILE), the one de facto
// file format for GPU node topologies:
//   <system><cpu numaid="3"><pci busid="0000:c1:00.0"><gpu dev="0" rank="0">
//     <xgmi target="0000:c6:00.0" count="4"/>   (RCCL; <nvlink .../> for NCCL)
// Rules (also in README.md): devices ordered by `dev`; links[i][j] = sum of
// `count` (default 1) of i's xgmi/nvlink children whose target is j's
// enclosing <pci busid>; links to an NVSwitch (tclass 0x0680xx) join every
// pair of switch-attached GPUs with min(count_i, count_j) links; links to
// other non-GPU targets that carry a tclass (CPUs) are ignored; any other
// unknown target is an error. hops = hops_from_links, package =
// packages_from_links (graph.h), numa = the enclosing <cpu numaid>.
#pragma once

#include <string_view>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

// `origin` prefixes errors ("origin:line N: ..."). On error: flat_topology(1).
LoadResult parse_rccl_xml(std::string_view text, std::string_view origin);

}  // namespace nbrcoll::topo
