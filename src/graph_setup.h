// What happens once per graph communicator: learn the neighbour lists, where
// every rank lives (node, device, package), the in-lists of the node's ranks
// (NI_r), and build the plans. Collective over the graph communicator.
#pragma once

#include <mpi.h>

#include <memory>

#include "comm_state.h"

namespace nbrcoll {

// MPI_SUCCESS and `out` set, or an MPI error code (nothing attached).
int build_graph_info(MPI_Comm graph_comm, std::shared_ptr<GraphInfo>& out);

// The tag windows of `info` from the largest tag stride of all ranks (every
// rank must shift its tags by the same amount per call).
void set_tag_windows(GraphInfo& info, int common_stride);

}  // namespace nbrcoll
