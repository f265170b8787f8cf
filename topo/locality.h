// Pure locality rules (no MPI): which device a rank drives and which
// emulated node it belongs to. The MPI exchange that gathers them lives in src/.
#pragma once

#include <string>
#include <vector>

namespace nbrcoll::topo {

// The device of the rank with node-local rank `local_rank` on a node with
// `devices` devices: device_map[local_rank] when that entry exists and is in
// [0, devices) (NBRCOLL_DEVICE_MAP), else local_rank % devices.
// devices < 1 or local_rank < 0 give 0.
int device_for_local_rank(int local_rank, int devices, const std::vector<int>& device_map);

// Parses NBRCOLL_DEVICE_MAP: comma-separated device indices, e.g. "0,2,4,6"
// (blanks allowed). Returns "" and fills `map`, or an error (map left empty).
std::string parse_device_map(const std::string& text, std::vector<int>& map);

// NBRCOLL_RANKS_PER_NODE=k: ranks [0,k) are node 0, [k,2k) node 1, ...
// ranks_per_node < 1 means "no emulation": every rank reports node 0; a
// negative rank gives -1.
int emulated_node(int rank, int ranks_per_node);

// The rank's index within its emulated node (rank % k; 0 when k < 1).
int emulated_local_rank(int rank, int ranks_per_node);

}  // namespace nbrcoll::topo
