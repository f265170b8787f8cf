// What happens once per graph communicator: learn the neighbour lists, where
// every rank lives (node, device, package), the in- and out-lists of the
// node's ranks (NI_r), build the plans, agree, and make the private
// communicator. Collective over the graph communicator.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "comm_state.h"
#include "cost_tables.h"
#include "places.h"

namespace nbrcoll {

// Length of GraphInfo::agreed_max: terms every rank contributes to the
// agreement at graph creation and every rank gets back as maxima over ranks.
// Today the cost model's (cost_tables.h); raise it to add others.
inline constexpr int kAgreedTerms = static_cast<int>(kCostTerms);

// Microseconds spent in each step of setup_graph() on this rank.
struct SetupTimes {
  double private_start = 0;  // MPI_Comm_idup of the graph started
  double neighbours = 0;     // own lists read, own record made
  double places = 0;         // the one allgather of places
  double devices = 0;        // only when devices could not be derived: a second allgather
  double node_lists = 0;     // in- and out-lists among the node's ranks
  double plans = 0;          // plan building
  double agreement = 0;      // the allreduce
  double private_wait = 0;   // the idup's completion
  double total = 0;
};

struct GraphSetup {
  std::shared_ptr<GraphInfo> info;  // null on every rank, or set on every rank
  // The private communicator, complete.
  MPI_Comm private_comm = MPI_COMM_NULL;
  SetupTimes times;
};

// The whole set-up; either every rank gets `info` and a private communicator
// (its idup started everywhere) or none does (then one warning line).
GraphSetup setup_graph(MPI_Comm graph_comm);

// NI_r and the out-lists of the node's ranks, into input.node_in and
// input.node_out from input.in and input.out: each rank sends its lists (plan
// ranks) to every other rank of its node, point to point on `comm`, and
// receives theirs, whose lengths the places tell; (rank, list) pairs sorted
// by rank, this rank included. Only on a communicator nobody else uses yet.
int exchange_node_lists(MPI_Comm comm, int rank, const DecodedPlaces& places, algos::PlanInput& input);

// The agreement at the end of graph creation, one MPI_MAX allreduce over
// `comm` of [failed, tag stride, agreed_max...]: did every rank succeed, the
// largest tag stride, and the element-wise maxima of GraphInfo::agreed_max
// (kAgreedTerms entries). `mine` null: this rank failed (it
// sends zeros).
struct Agreement {
  bool all_ok = false;
  int tag_stride = 1;
  std::vector<std::int64_t> agreed_max;  // kAgreedTerms entries
};
int agree_on_setup(MPI_Comm comm, const GraphInfo* mine, Agreement& out);

// The tag windows of `info` from the largest tag stride of all ranks (every
// rank must shift its tags by the same amount per call).
void set_tag_windows(GraphInfo& info, int common_stride);

}  // namespace nbrcoll
