// Where a call's messages travel: a communicator, the rank there of each
// graph rank, and the shift of every plan tag (the handle's tag block and
// the call's window in it, state/comm_state.h).
#pragma once

#include <mpi.h>

#include <vector>

#include "algos/variant.h"

namespace nbrcoll {

struct Channel {
  MPI_Comm comm = MPI_COMM_NULL;
  const std::vector<int>* rank_of = nullptr;  // graph rank -> rank in `comm`; nullptr: the same
  int tag_offset = 0;
  // The shift of window 0, where every linear fragment of the host
  // transport travels, whatever the call's window (call/progress.h:
  // launch()): both ends of a block choose its variant from its size, so
  // they agree on its window too, and a rank whose call is all linear needs
  // no window of its own. The device transport keeps every message in the
  // call's window: its calls block (nothing to gain), and the fake device's
  // fault-injection self-test hung with its linear fragments in window 0
  // (the cause was not looked into).
  int linear_offset = 0;
  [[nodiscard]] int fragment_tag(int plan_tag, algos::Variant v) const {
    return plan_tag + (v == algos::Variant::kLinear ? linear_offset : tag_offset);
  }
  [[nodiscard]] int rank(int graph_rank) const {
    return rank_of == nullptr ? graph_rank : (*rank_of)[static_cast<std::size_t>(graph_rank)];
  }
};

}  // namespace nbrcoll
