// What happens once per graph communicator: learn the neighbour lists, where
// every rank lives (node, device, package), the in- and out-lists of the
// node's ranks (NI_r), build the plans, agree, and find the graph its
// channel: a serial on the shared communicator (shared_comm.h), or else a
// private communicator. Collective over the graph communicator.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "state/comm_state.h"
#include "state/cost_tables.h"
#include "state/places.h"
#include "state/stopwatch.h"

namespace nbrcoll {

// Length of GraphInfo::agreed_max: terms every rank contributes to the
// agreement at graph creation and every rank gets back as maxima over ranks.
// Today the cost model's (cost_tables.h); raise it to add others.
inline constexpr int kAgreedTerms = static_cast<int>(kCostTerms);

// Each step of setup_graph() on this rank.
struct SetupTimes {
  StepTime neighbours;        // own lists read, own record made
  StepTime places;            // the places: looked up in MPI_Init's records, or one allgather
  StepTime devices;           // only when devices could not be derived: a second allgather
  StepTime node_lists;        // in- and out-lists among the node's ranks
  StepTime plans;             // plan building
  bool plans_reused = false;  // a recent graph's plans, made from an equal input (plan_set.h)
  StepTime agreement;         // the allreduce
  StepTime private_dup;       // only without the shared communicator: MPI_Comm_dup of the graph
  StepTime total;
};

struct GraphSetup {
  std::shared_ptr<GraphInfo> info;     // null on every rank, or set on every rank
  std::shared_ptr<OwnedComm> channel;  // set with `info`
  SetupTimes times;
};

// The whole set-up of `graph_comm`, made from `parent`; either every rank
// gets `info` and a channel, or none does (then one warning line).
GraphSetup setup_graph(MPI_Comm graph_comm, MPI_Comm parent);

// NI_r and the out-lists of the node's ranks, into input.node_in and
// input.node_out from input.in and input.out: each rank sends its lists (plan
// ranks), its in-degree first, to every other rank of its node, point to
// point on `comm`, and receives theirs, whatever their length (a probe
// matches each); (rank, list) pairs sorted by rank, this rank included.
// `failed`: this rank could not read its lists; it still sends (an in-degree
// of -1), so that no peer waits, and a peer that receives such a message
// returns an error (the agreement then fails every rank). Only on a
// communicator nobody else uses yet.
int exchange_node_lists(MPI_Comm comm, int rank, const DecodedPlaces& places, algos::PlanInput& input,
                        bool failed = false);
// The same with the node's other ranks given (`peers`, graph ranks,
// ascending), on any communicator: `comm_rank` says each graph rank's rank
// there (null: the same), and `tag` is a tag nothing else sends on `comm`
// from these ranks.
int exchange_node_lists(MPI_Comm comm, int rank, const std::vector<int>& peers, const std::vector<int>* comm_rank,
                        int tag, algos::PlanInput& input, bool failed = false);
// That exchange in two halves, which a graph that plans late spreads over
// two calls (late_plans.h): post_node_lists sends this rank's message to
// every peer (`out` keeps it and the requests); receive_node_lists receives
// the peers' (unless `posted`, what posting returned, is an error), completes
// the sends unless `keep_sends` (then the caller completes them, later: a
// long message waits for its peer to receive it) and fills the node lists.
struct NodeListSends {
  std::vector<int> message;
  std::vector<MPI_Request> requests;
};
// Graph rank `r`'s rank on a channel: through `comm_rank` (graph rank ->
// channel rank), or `r` itself where that is null.
int comm_rank_of(const std::vector<int>* comm_rank, int r);

int post_node_lists(MPI_Comm comm, const std::vector<int>& peers, const std::vector<int>* comm_rank, int tag,
                    const algos::PlanInput& input, bool failed, NodeListSends& out);
int receive_node_lists(MPI_Comm comm, int rank, const std::vector<int>& peers, const std::vector<int>* comm_rank,
                       int tag, algos::PlanInput& input, NodeListSends& sent, int posted, bool keep_sends = false);
// Whether the messages of every peer from peers[*seen] on have arrived, by
// a look (MPI_Iprobe), without waiting: `seen` counts the peers found so
// far (their messages stay for receive_node_lists, each the first under
// `tag` from its sender). True also where a probe fails: the receive then
// reports it.
bool node_lists_arrived(MPI_Comm comm, const std::vector<int>& peers, const std::vector<int>* comm_rank, int tag,
                        std::size_t& seen);

// Every planner's plans from the complete input (node lists included) into
// `info`, or a recent graph's made from an equal input (`reused`), with this
// rank's cost terms (info.agreed_max until the agreement) and tag stride.
void build_every_plan(algos::PlanInput&& input, GraphInfo& info, bool& reused);

// Called by the MPI_Init wrappers after open_shared_comm (every world rank
// does): gathers every world rank's place record once over the shared
// communicator, so that graph creation need not exchange them.
void gather_world_places();

// The world's shape from the records gather_world_places gathered: its
// nodes and the most ranks on one of them (the same on every rank); zeros
// where they were not gathered.
struct WorldShape {
  int nodes = 0;
  int ranks_per_node = 0;
};
WorldShape world_shape();

// What a rank offers towards the graph's channel: whether it can take a
// serial on the shared communicator, and its proposal (SerialClaim).
struct ChannelBid {
  bool shared = false;
  std::int64_t serial = 0;
  bool wants_serials = false;  // creation_line.h: serials for the parent's line
};

// The agreement at the end of graph creation, one MPI_MAX allreduce over
// `comm` of [failed, tag stride, not shared, serial, no reservation,
// agreed_max...]: did every rank succeed, the largest tag stride, does the
// graph take the shared communicator (every rank bid so) and with which
// serial (the largest proposal), do the kLineSerials serials after the
// graph's go to its parent's creation line (every rank wants them, the
// graph is shared and they lie below agreed_serials(): creation_line.h),
// and the element-wise maxima of GraphInfo::agreed_max (kAgreedTerms
// entries). `mine` null: this rank failed (it sends zeros). A graph that
// plans late (late_plans.h) makes the same agreement then.
struct Agreement {
  bool all_ok = false;
  int tag_stride = 1;
  bool shared = false;
  std::int64_t serial = 0;
  bool reserves = false;
  std::vector<std::int64_t> agreed_max;  // kAgreedTerms entries
};
int agree_on_setup(MPI_Comm comm, const GraphInfo* mine, Agreement& out, const ChannelBid& bid = {});
// Its halves, for an agreement made by a nonblocking allreduce
// (late_plans.h): this rank's terms, and what the reduced terms say (`rc`:
// the allreduce's result).
std::vector<std::int64_t> agreement_terms(const GraphInfo* mine, const ChannelBid& bid = {});
Agreement read_agreement(const std::vector<std::int64_t>& terms, int rc);

// The tag windows of `info` from the largest tag stride of all ranks (every
// rank must shift its tags by the same amount per call), within `tags` tags
// (a shared communicator's block, or MPI_TAG_UB). 0 windows: none fits.
void set_tag_windows(GraphInfo& info, int common_stride, long long tags);

}  // namespace nbrcoll
