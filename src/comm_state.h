// Per-communicator state: built once at graph creation, attached to the graph
// communicator as an MPI attribute, freed by its delete callback.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cost_model.h"
#include "executor.h"
#include "plan.h"

namespace nbrcoll {

// What graph creation computed; immutable, shared by a communicator and its
// duplicates (MPI_Comm_dup keeps the topology, so the plans stay valid).
struct GraphInfo {
  int rank = 0;
  int size = 0;
  int nodes = 1;
  std::vector<int> in;                   // in-list as MPI reports it (MPI_PROC_NULL kept)
  std::vector<int> out;                  // out-list as MPI reports it
  bool any_real_out = false;             // an out-neighbour other than MPI_PROC_NULL
  bool any_proc_null = false;            // anywhere in the communicator (one value on every rank)
  std::vector<int> node_of;              // rank -> node id (dense, 0..nodes-1)
  std::vector<algos::RankPlace> places;  // rank -> (node, device, package), the planners' input
  std::vector<int> process_of;           // rank -> MPI_COMM_WORLD rank: names a process for the IPC caches
  std::string topo_source;
  algos::Plan linear;  // each planner's plan, for statistics and introspection
  algos::Plan leader;
  algos::Plan aggregated;
  algos::Plan alltoall_linear;
  algos::Plan alltoall_aggregated;
  RunnablePlan plan;      // allgather(v): the three, mixed: each call picks a variant per origin
  RunnablePlan alltoall;  // neighbor alltoall(v): linear and aggregated, mixed per edge
  // The cost model's predicted time of each variant per block size, the
  // same on every rank (cost_tables.h), and what auto chooses from: the
  // same without a variant that never wins.
  algos::CostTable gather_model;
  algos::CostTable alltoall_model;
  algos::CostTable gather_costs;
  algos::CostTable alltoall_costs;
  // Tags of call n on the private communicator: (n mod tag_windows) *
  // tag_stride + plan tag, so calls in flight together never share a tag.
  // Notes (Route, processes with a GPU runtime) add note_shift() to a tag.
  int tag_stride = 1;
  int tag_windows = 1;
  [[nodiscard]] int note_shift() const { return tag_stride * tag_windows; }
  // kAgreedTerms (graph_setup.h) terms, each the maximum over all ranks of
  // what each rank's plan building put there (the cost model's predictions,
  // cost_tables.h): the same vector on every rank, from the one allreduce of
  // graph creation.
  std::vector<std::int64_t> agreed_max;
};

// At most this many calls of one communicator handle in flight together
// before a new call first completes the oldest (MPI_TAG_UB permitting).
inline constexpr int kMaxTagWindows = 64;

class Operation;

// The calls of one communicator handle, in the order every rank makes them
// (as MPI requires of collectives): call n uses tag window n mod tag_windows.
struct CallSequence {
  std::uint64_t calls = 0;
  // Per tag window: the call in flight that used it last (a new call in the
  // same window waits for it first).
  std::vector<std::shared_ptr<Operation>> window;
};

// What one call needs besides the plan, kept between calls so that a call
// allocates nothing once sizes have been seen (one call at a time per
// communicator handle, as MPI requires of collectives).
struct CallScratch {
  CallArgs args;
  CallLayout layout;
  CallChoice choice;
  BundleStore bundles;
};

// One per communicator handle. A duplicate shares `info` but gets a private
// communicator of its own, so two handles never mix messages. Graph creation
// makes the graph's (an idup of the graph, complete when creation returns:
// graph_setup.cpp says why). MPI_Comm_dup starts an idup of the original's
// private communicator in its copy callback (every rank runs it, in the same
// order) and the duplicate's first call completes it, so no call starts a
// communicator-wide operation; that idup reads a communicator only nbrcoll
// uses, so the application's own collectives on the duplicate cannot meet it.
// A private communicator, freed when its last user lets go: a duplicate's
// idup reads the original's, which must outlive the idup even if the user
// frees the original first.
struct OwnedComm {
  MPI_Comm comm = MPI_COMM_NULL;
  // The idup that makes `comm`, until completed (a duplicate's; its first
  // call or the next duplicate of the same original completes it).
  MPI_Request pending = MPI_REQUEST_NULL;
  // The newest idup read from this communicator. Open MPI 4.1.4 hangs when
  // two idups of one communicator are pending together (it starts the later
  // rounds of each from its progress engine, in a different order on
  // different ranks), so a duplicate's idup starts only once the previous
  // duplicate's completed.
  std::weak_ptr<OwnedComm> newest_copy;
  explicit OwnedComm(MPI_Comm c) : comm(c) {}
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  ~OwnedComm();
};

struct CommState {
  std::shared_ptr<const GraphInfo> info;
  std::shared_ptr<OwnedComm> own;          // this handle's private communicator
  std::shared_ptr<OwnedComm> idup_source;  // what our pending idup reads, kept alive with us
  std::shared_ptr<CallSequence> sequence;  // calls on this handle (persistent requests share it)
  CallScratch scratch;
};

// Attach freshly built state and its private communicator to `graph_comm`
// (creates the keyval on first use); frees `private_comm` where it fails.
int attach_state(MPI_Comm graph_comm, std::shared_ptr<const GraphInfo> info, MPI_Comm private_comm);

// The state of `comm`, or nullptr when nbrcoll holds none (not a graph made
// through nbrcoll, an intercommunicator, ...).
CommState* find_state(MPI_Comm comm);

// The private communicator of `state` (completing a duplicate's idup on first use), or
// MPI_COMM_NULL if it could not be made.
MPI_Comm private_comm(CommState& state);

}  // namespace nbrcoll
