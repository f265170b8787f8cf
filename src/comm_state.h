// Per-communicator state: built once at graph creation, attached to the graph
// communicator as an MPI attribute, freed by its delete callback.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "executor.h"
#include "plan.h"

namespace nbrcoll {

// What graph creation computed; immutable, shared by a communicator and its
// duplicates (MPI_Comm_dup keeps the topology, so the plans stay valid).
struct GraphInfo {
  int rank = 0;
  int size = 0;
  int nodes = 1;
  std::vector<int> in;          // in-list as MPI reports it (MPI_PROC_NULL kept)
  std::vector<int> out;         // out-list as MPI reports it
  bool any_real_out = false;    // an out-neighbour other than MPI_PROC_NULL
  bool any_proc_null = false;   // anywhere in the communicator (one value on every rank)
  std::vector<int> node_of;     // rank -> node id (dense, 0..nodes-1)
  std::vector<int> process_of;  // rank -> MPI_COMM_WORLD rank: names a process for the IPC caches
  std::string topo_source;
  RunnablePlan linear;
  RunnablePlan leader;
};

// One per communicator handle. A duplicate shares `info` but gets a private
// communicator of its own on first use, so two handles never mix messages.
struct CommState {
  std::shared_ptr<const GraphInfo> info;
  MPI_Comm private_comm = MPI_COMM_NULL;
};

// Attach freshly built state to `graph_comm` (creates the keyval on first use).
int attach_state(MPI_Comm graph_comm, std::shared_ptr<const GraphInfo> info);

// The state of `comm`, or nullptr when nbrcoll holds none (not a graph made
// through nbrcoll, an intercommunicator, ...).
CommState* find_state(MPI_Comm comm);

// The private communicator of `state`, created on first use by a collective
// split of `comm` (every rank reaches this in the same collective call).
MPI_Comm private_comm(MPI_Comm comm, CommState& state);

}  // namespace nbrcoll
