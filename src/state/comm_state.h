// Per-communicator state: built once at graph creation, attached to the graph
// communicator as an MPI attribute, freed by its delete callback.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "algos/cost_model.h"
#include "algos/plan.h"
#include "algos/schedule.h"
#include "state/plan_set.h"

namespace nbrcoll {

// What graph creation computed; immutable, shared by a communicator and its
// duplicates (MPI_Comm_dup keeps the topology, so the plans stay valid). A
// handle whose graph plans late takes a new one then (late_plans.h).
struct GraphInfo {
  int rank = 0;
  int size = 0;
  int nodes = 1;
  std::vector<int> in;        // in-list as MPI reports it (MPI_PROC_NULL kept)
  std::vector<int> out;       // out-list as MPI reports it
  bool any_real_out = false;  // an out-neighbour other than MPI_PROC_NULL
  std::vector<int> node_of;   // rank -> node id (dense, 0..nodes-1)
  // How alltoall blocks pair with slots where a peer is named twice: list
  // order, or crossed per dimension on a Cartesian communicator.
  algos::EdgePairing pairing = algos::EdgePairing::kListOrder;
  // The MPI's own neighborhood collectives on this communicator post the
  // linear plan's messages and pair blocks as the standard says, by a fact
  // every rank knows alike: a Cartesian grid without duplicate neighbours
  // (none of its periodic dimensions has 1 or 2 processes). auto hands its
  // calls that go linear by rule to the MPI (call/decide.cpp).
  bool mpi_runs_linear = false;
  std::vector<int> process_of;  // rank -> MPI_COMM_WORLD rank: names a process for the IPC caches
  std::string topo_source;
  // Only the linear plans were built: the graph's calls can never choose
  // another variant (graph_setup.cpp, linear_only), so the node lists, the
  // other planners and the cost model were skipped at creation.
  bool linear_only = false;
  // Set up without the agreement (graph_setup.cpp): its linear tags are all
  // 0, matched in posting order, which the device transport's twin
  // receives (data and note) cannot use.
  bool unagreed = false;
  // A graph across nodes that plans late (late_plans.h): the blocking call
  // of each handle that plans it (the first is 1); 0: none does.
  std::uint64_t plan_at_call = 0;
  // Every planner's plans were built at creation (or found: plan_set.h),
  // and the two mixed schedules wait for their family's first call
  // (schedules.h).
  bool mixed_lazily = false;
  // Its plans, schedules and own cost rows; shared with every graph of the
  // same planners' input (plan_set.h), which the set holds (every rank's
  // place: plans->input.places). A PlanSet's lazy members are built
  // through a const GraphInfo: the pointer is const, the set is not.
  std::shared_ptr<PlanSet> plans;  // set by graph set-up (plan_set_for)
  // The cost model's predicted time of each variant per block size, the
  // same on every rank (cost_tables.h), and what auto chooses from: the
  // same without a variant that never wins.
  algos::CostTable gather_model;
  algos::CostTable alltoall_model;
  algos::CostTable gather_costs;
  algos::CostTable alltoall_costs;
  // Tags of call n: the handle's tag_base + (n mod tag_windows) * tag_stride
  // + plan tag, so calls in flight together never share a tag.
  // Notes (Route, processes with a GPU runtime) add note_shift() to a tag.
  int tag_stride = 1;
  int tag_windows = 1;
  [[nodiscard]] int note_shift() const { return tag_stride * tag_windows; }
  // kAgreedTerms (graph_setup.h) terms, each the maximum over all ranks of
  // what each rank's plan building put there (the cost model's predictions,
  // cost_tables.h): the same vector on every rank, from the one allreduce of
  // graph creation. A linear-only graph's are its own rank's, made with
  // its tables when first asked (ensure_cost_tables): its calls never ask.
  std::vector<std::int64_t> agreed_max;
  mutable std::once_flag costs_made;
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

// What a call needs besides its schedule, and the pool of nonblocking
// calls' (call/scratch.h).
struct CallScratch;
class ScratchPool;
// auto's measured choice on a handle (call/tuning.h).
struct HandleTuning;
// A graph's planning in progress on a handle (late_plans.h).
struct LatePlanning;

// One per communicator handle. A duplicate shares `info` but gets a channel
// of its own, so two handles never mix messages. Where the process-wide
// communicator exists (shared_comm.h), a handle's channel is its tag block
// there (tag_blocks.h): graph creation and MPI_Comm_dup make no
// communicator. Otherwise graph creation makes a private communicator, a
// duplicate of the graph, and MPI_Comm_dup starts an idup of the original's
// private communicator in its copy callback (every rank runs it, in the same
// order) that the duplicate's first call completes, so no call starts a
// communicator-wide operation; that idup reads a communicator only nbrcoll
// uses, so the application's own collectives on the duplicate cannot meet it.
// A private communicator is freed when its last user lets go: a duplicate's
// idup reads the original's, which must outlive the idup even if the user
// frees the original first.
struct OwnedComm {
  MPI_Comm comm = MPI_COMM_NULL;
  // The process-wide communicator (not ours to free): `comm` ranks are world
  // ranks, and this handle's tags start at `tag_base`.
  bool shared = false;
  std::int64_t serial = 0;  // shared: the graph's serial
  int handle = 0;           // shared: this handle's index among the graph's (tag_blocks.h)
  int duplicates = 0;       // shared: duplicates made of this handle so far
  int tag_base = 0;
  int ack_tag = 0;  // the IPC acks' tag: above every plan and note tag of this handle
  // The idup that makes `comm`, until completed (a duplicate's; its first
  // call or the next duplicate of the same original completes it).
  MPI_Request pending = MPI_REQUEST_NULL;
  // The newest idup read from this communicator. Open MPI 4.1.4 hangs when
  // two idups of one communicator are pending together (it starts the later
  // rounds of each from its progress engine, in a different order on
  // different ranks), so a duplicate's idup starts only once the previous
  // duplicate's completed.
  std::weak_ptr<OwnedComm> newest_copy;
  explicit OwnedComm(MPI_Comm c);                          // a private communicator: tag_base 0, ack_tag MPI_TAG_UB
  OwnedComm(std::int64_t graph_serial, int handle_index);  // handle `handle_index`'s block on the shared one
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  ~OwnedComm();
};

struct CommState {
  std::shared_ptr<const GraphInfo> info;
  std::shared_ptr<OwnedComm> own;          // this handle's channel
  std::shared_ptr<OwnedComm> idup_source;  // what our pending idup reads, kept alive with us
  std::shared_ptr<CallSequence> sequence;  // calls on this handle (persistent requests share it)
  std::shared_ptr<CallScratch> scratch;    // this handle's blocking calls', made by the first
  std::shared_ptr<ScratchPool> pool;       // its nonblocking calls', made by the first
  std::uint64_t planning_calls = 0;        // made on this handle that count towards planning (late_plans.h)
  std::shared_ptr<HandleTuning> tuning;    // made by the first tunable call
  std::shared_ptr<LatePlanning> late;      // from the blocking call that starts planning to the one it plans at
};

// Attach freshly built state and its channel to `graph_comm` (creates the
// keyval on first use).
int attach_state(MPI_Comm graph_comm, std::shared_ptr<const GraphInfo> info, std::shared_ptr<OwnedComm> channel);

// The state of `comm`, or nullptr when nbrcoll holds none (not a graph made
// through nbrcoll, an intercommunicator, ...).
CommState* find_state(MPI_Comm comm);

// The communicator of `state`'s channel (completing a duplicate's idup on
// first use), or MPI_COMM_NULL if it could not be made.
MPI_Comm channel_comm(CommState& state);

}  // namespace nbrcoll
