// Where the ranks of MPI_COMM_WORLD live: node of every rank.
#pragma once

#include <vector>

namespace nbrbench {

struct World {
  int rank = 0;
  int procs = 1;
  int nodes = 1;
  std::vector<int> node_of;  // node index of every rank, 0..nodes-1
  bool emulated = false;     // from NBRCOLL_RANKS_PER_NODE
};

// NBRCOLL_RANKS_PER_NODE=k (k > 0) makes ranks [0,k) node 0 and so on, as in
// nbrcoll; otherwise nodes are the MPI_COMM_TYPE_SHARED groups. Collective.
World describe_world();

}  // namespace nbrbench
