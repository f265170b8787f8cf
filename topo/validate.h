// Checks that a NodeTopology is well formed before anyone plans with it.
#pragma once

#include <string>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

// Largest node we accept: guards allocations against absurd inputs
// ("devices 100000000" in a file must not take the process down).
inline constexpr int kMaxDevices = 1024;

// Returns "" when `t` is well formed, else one sentence naming the first bad
// entry, e.g. "links[2][5]=3 but links[5][2]=1". Checked: 1 <= devices <=
// kMaxDevices; links/hops are devices x devices; zero diagonals; links >= 0;
// hops >= 1 off the diagonal; symmetry of links and hops (when
// `require_symmetric`); package ids in [0, devices); numa ids >= -1.
std::string validate_topology(const NodeTopology& t, bool require_symmetric = true);

}  // namespace nbrcoll::topo
