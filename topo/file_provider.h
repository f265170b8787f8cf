// Topology from a file: nbrcoll's text format or NCCL/RCCL XML.
#pragma once

#include <string>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

// True when NBRCOLL_TOPO should be read as a path: it contains '/', ends in
// .txt / .topo / .xml, or names an existing regular file.
bool looks_like_file(const std::string& spec);

// Reads `path` (at most 16 MiB). XML when the name ends in .xml or the first
// non-blank character is '<'; the text format otherwise.
LoadResult load_topology_file(const std::string& path);

}  // namespace nbrcoll::topo
