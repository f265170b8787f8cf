// Where a call's messages travel: a communicator, the rank there of each
// graph rank, and the shift of every plan tag (the handle's tag block and
// the call's window in it, state/comm_state.h).
#pragma once

#include <mpi.h>

#include <vector>

namespace nbrcoll {

struct Channel {
  MPI_Comm comm = MPI_COMM_NULL;
  const std::vector<int>* rank_of = nullptr;  // graph rank -> rank in `comm`; nullptr: the same
  int tag_offset = 0;
  [[nodiscard]] int rank(int graph_rank) const {
    return rank_of == nullptr ? graph_rank : (*rank_of)[static_cast<std::size_t>(graph_rank)];
  }
};

}  // namespace nbrcoll
