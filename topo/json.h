// A NodeTopology as one JSON object (nbrcoll-topo --json, debug logs):
// {"devices":8,"source":"...","package":[..],"numa":[..],"links":[[..],..],"hops":[[..],..]}
#pragma once

#include <string>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

// One line, no trailing newline. Matrices are written as `devices` rows.
std::string to_json(const NodeTopology& t);

}  // namespace nbrcoll::topo
