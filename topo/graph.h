// Derived quantities for sources that only give link counts (XML files,
// ROCm SMI without link weights, text files without a hops table).
#pragma once

#include <vector>

namespace nbrcoll::topo {

// T_h from T_l: shortest path over pairs with links > 0 (BFS). A pair with no
// path counts as one hop more than the longest finite path on the node, so
// 1 on a node without links (flat) and 2 across Summit's sockets. Expects an
// n x n matrix; returns n x n with a zero diagonal.
std::vector<int> hops_from_links(int n, const std::vector<int>& links);

// Package of each device from T_l. Let M be the largest link count. If M >= 2
// and every connected group of pairs joined by exactly M links has at most
// two devices (the MI200 signature: two GCDs of one package joined by 4
// links), those groups are the packages. Otherwise (fully connected nodes
// like MI300X / MI300A / NVSwitch, Summit's triangles, no links) every
// device is its own package. Ids are 0.. in order of the lowest device.
std::vector<int> packages_from_links(int n, const std::vector<int>& links);

// Renumbers arbitrary labels to 0.. in order of first appearance.
std::vector<int> normalize_labels(const std::vector<int>& labels);

}  // namespace nbrcoll::topo
