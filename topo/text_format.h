// Reader for nbrcoll's own topology text format (documented in README.md):
//   devices 8
//   package 0 0 1 1 2 2 3 3
//   numa 3 3 1 1 0 0 2 2
//   links        (then `devices` rows of `devices` integers)
//   hops         (likewise)
// '#' starts a comment. Only `devices` is required.
#pragma once

#include <string_view>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

// Parses `text`; `origin` (usually the path) prefixes error messages as
// "origin:line: ...". On error the result holds flat_topology(1).
LoadResult parse_topology_text(std::string_view text, std::string_view origin);

}  // namespace nbrcoll::topo
