#include "state/graph_setup.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/held_handles.h"
#include "state/cost_tables.h"
#include "state/creation_line.h"
#include "state/late_plans.h"
#include "state/places.h"
#include "state/plan_input.h"
#include "state/plan_set.h"
#include "state/schedules.h"
#include "state/shared_comm.h"
#include "state/tag_blocks.h"
#include "support/config.h"
#include "support/log.h"
#include "topo/locality.h"
#include "topo/node_topology.h"
#include "transport/device/backend_loader.h"

namespace nbrcoll {

namespace {

// What names this process's node: hostname and boot id. Nodes emulated by
// network namespaces with their own UTS hostname differ by hostname; so do
// containers on one machine (treated as separate nodes, conservatively).
const std::string& host_identity() {
  static const std::string identity = [] {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    std::string boot;
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::getline(in, boot);
    return std::string(host) + '\n' + boot;
  }();
  return identity;
}

// This rank's neighbour lists in the order the standard gives the blocks of
// a neighborhood collective (MPI-4.1 section 8.6), and how alltoall blocks
// pair with slots on this kind of communicator:
// - distributed graph: MPI_Dist_graph_neighbors' lists;
// - Cartesian: per dimension the source of MPI_Cart_shift(comm, d, 1), the
//   neighbour at -1, then its destination, at +1 (MPI_PROC_NULL past a
//   non-periodic border), the same list both ways; blocks cross per
//   dimension (algos::EdgePairing::kCartesian);
// - graph (MPI_Graph_create): MPI_Graph_neighbors, both ways.
int read_neighbours(MPI_Comm comm, std::vector<int>& in, std::vector<int>& out, algos::EdgePairing& pairing) {
  int kind = MPI_UNDEFINED;
  int rc = PMPI_Topo_test(comm, &kind);
  if (rc != MPI_SUCCESS) return rc;
  pairing = kind == MPI_CART ? algos::EdgePairing::kCartesian : algos::EdgePairing::kListOrder;
  if (kind == MPI_CART) {
    int dims = 0;
    rc = PMPI_Cartdim_get(comm, &dims);
    out.clear();
    for (int d = 0; d < dims && rc == MPI_SUCCESS; ++d) {
      int minus = MPI_PROC_NULL;
      int plus = MPI_PROC_NULL;
      rc = PMPI_Cart_shift(comm, d, 1, &minus, &plus);
      out.push_back(minus);
      out.push_back(plus);
    }
    in = out;
    return rc;
  }
  if (kind == MPI_GRAPH) {
    int rank = 0;
    int degree = 0;
    rc = PMPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS) rc = PMPI_Graph_neighbors_count(comm, rank, &degree);
    if (rc != MPI_SUCCESS) return rc;
    out.resize(static_cast<std::size_t>(degree));
    rc = PMPI_Graph_neighbors(comm, rank, degree, out.data());
    in = out;
    return rc;
  }
  if (kind != MPI_DIST_GRAPH) return MPI_ERR_TOPOLOGY;
  int indegree = 0;
  int outdegree = 0;
  int weighted = 0;
  rc = PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
  if (rc != MPI_SUCCESS) return rc;
  in.resize(static_cast<std::size_t>(indegree));
  out.resize(static_cast<std::size_t>(outdegree));
  std::vector<int> in_w(weighted ? in.size() + 1 : 0);
  std::vector<int> out_w(weighted ? out.size() + 1 : 0);
  return PMPI_Dist_graph_neighbors(comm, indegree, in.data(), weighted ? in_w.data() : MPI_UNWEIGHTED, outdegree,
                                   out.data(), weighted ? out_w.data() : MPI_UNWEIGHTED);
}

// GraphInfo::mpi_runs_linear from a rank's lists: Cartesian, no real
// neighbour named twice. A Cartesian neighbour is named twice only along a
// periodic dimension of 1 or 2 processes (two neighbours in different
// dimensions differ in different coordinates), which every rank of the
// grid has alike, so every rank reaches the same answer. Both MPIs pair
// such duplicates against the standard (docs/KNOWN-ISSUES.md).
bool mpi_runs_linear(algos::EdgePairing pairing, const std::vector<int>& list) {
  if (pairing != algos::EdgePairing::kCartesian) return false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    for (std::size_t j = i + 1; j < list.size(); ++j)
      if (list[i] != MPI_PROC_NULL && list[i] == list[j]) return false;
  }
  return true;
}

// Tag of the node-list messages on the new graph communicator. Nobody else
// can use that communicator yet: no rank hands it to the application before
// the agreement completes, which needs every rank to have entered it, and a
// rank enters it only once its node-list messages completed. Below 32767,
// the smallest MPI_TAG_UB the standard allows.
constexpr int kNodeListTag = 7411;

// This process's record without its graph's part (degrees, flags): the
// same for every graph, worked out once.
const OwnPlace& own_place() {
  static const OwnPlace own = [] {
    const topo::NodeTopology& topology = node_topology();
    OwnPlace o;
    PMPI_Comm_rank(MPI_COMM_WORLD, &o.world_rank);
    o.node_key = node_key(o.world_rank, config().ranks_per_node, host_identity());
    o.devices = topology.devices;
    o.package = topology.package;
    o.device_map_hash = hash_device_map(config().device_map);
    return o;
  }();
  return own;
}

// Every world rank's record, gathered once in MPI_Init (gather_world_places);
// empty where it was not.
std::vector<std::int64_t>& world_places() {
  static std::vector<std::int64_t> records;
  return records;
}

// world_places() decoded, for the graphs whose ranks are the world's own
// (most of them): decoded once, not at every creation. Only asked for when
// world_places() is not empty (it is filled in MPI_Init, before any graph).
const DecodedPlaces& world_decoded() {
  static const DecodedPlaces decoded = [] {
    const std::vector<std::int64_t>& records = world_places();
    return decode_places(records.data(), static_cast<int>(records.size() / kPlaceWords), config().device_map);
  }();
  return decoded;
}

bool is_identity(const std::vector<int>& ranks) {
  for (std::size_t r = 0; r < ranks.size(); ++r)
    if (ranks[r] != static_cast<int>(r)) return false;
  return true;
}

// MPI_Group_translate_ranks costs Open MPI 4.1.4 a scan of the second group
// for every rank translated: about size * world size / 2 pointer
// comparisons, 33 million for a graph of 8192 ranks. Above this budget a
// graph does not translate (graph_setup.cpp, build_graph_info).
constexpr long long kTranslateBudget = 1LL << 20;

// Where the ranks of `comm` are in MPI_COMM_WORLD: `in_world` false when
// some process of it is not there (after MPI_Comm_spawn and the like) or,
// with `translate` false, when the answer would need a translation;
// `identity` when graph rank r is world rank r (nothing in `ranks`), else
// `ranks` holds the world rank of every rank. The communicator's group
// being MPI_COMM_WORLD's own (Open MPI hands a graph of MPI_COMM_WORLD, or
// of a duplicate of it, the same group object) needs no translation and no
// list.
struct WorldRanks {
  bool in_world = false;
  bool identity = false;
  std::vector<int> ranks;
};
WorldRanks world_ranks_of(MPI_Comm comm, bool translate) {
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world = MPI_GROUP_NULL;
  int size = 0;
  WorldRanks there;
  const auto group_of = [](MPI_Comm c, MPI_Group* g) {
    const int rc = PMPI_Comm_group(c, g);
    if (rc == MPI_SUCCESS) report::note_made(report::Handle::kGroup);
    return rc;
  };
  if (group_of(comm, &group) == MPI_SUCCESS && group_of(MPI_COMM_WORLD, &world) == MPI_SUCCESS &&
      PMPI_Group_size(group, &size) == MPI_SUCCESS) {
    if (group == world) {
      there.in_world = there.identity = true;
    } else if (translate) {
      std::vector<int> ranks(static_cast<std::size_t>(size));
      std::iota(ranks.begin(), ranks.end(), 0);
      there.ranks.resize(ranks.size());
      there.in_world =
          PMPI_Group_translate_ranks(group, size, ranks.data(), world, there.ranks.data()) == MPI_SUCCESS &&
          std::none_of(there.ranks.begin(), there.ranks.end(), [](int w) { return w == MPI_UNDEFINED; });
      there.identity = there.in_world && is_identity(there.ranks);
      if (!there.in_world || there.identity) there.ranks.clear();
    }
  }
  for (MPI_Group* g : {&group, &world}) {
    if (*g != MPI_GROUP_NULL && PMPI_Group_free(g) == MPI_SUCCESS) report::note_freed(report::Handle::kGroup);
  }
  return there;
}

// The world's decoded places for a graph of every world process in world
// order: what the set-up reads of them (local ranks only where a rank must
// say its own device).
DecodedPlaces world_places_for_graph() {
  const DecodedPlaces& w = world_decoded();
  DecodedPlaces d;
  d.any_failed = w.any_failed;
  d.derived = w.derived;
  d.nodes = w.nodes;
  d.places = w.places;
  d.process_of = w.process_of;
  if (!w.derived) d.local_rank = w.local_rank;
  return d;
}

// What every rank learns alike during the set-up, whatever fails on one of
// them, and so may decide the rest by: the node count, whether the graph
// holds every process of MPI_COMM_WORLD, whether it plans late
// (late_plans.h), and whether it is set up without an agreement.
struct Facts {
  int nodes = 0;  // 0: not known (the places could not be read)
  bool covers_world = false;
  bool cartesian = false;  // PMPI_Topo_test: MPI_CART, the same on every rank
  bool plans_late = false;
  bool unagreed = false;
  // auto_on_host(), asked once per creation (the GPU runtime check asks the
  // dynamic loader, about a thousand instructions).
  bool auto_on_host = false;
  CreationLine* line = nullptr;  // the parent's creation order (creation_line.h)
};

// Whether a graph's calls can only ever run linear, so that graph creation
// builds the linear plans alone and skips the node lists, the other
// planners and most of the cost model: auto in a process without a GPU
// runtime, on one node (decide(): one node keeps host buffers on linear)
// or on a graph that plans late (late_plans.h: linear until then). The same
// on every rank: the node count comes from the places every rank decoded
// alike, the late planning from a setting every process agreed on at
// MPI_Init; the setting and the GPU runtime
// are alike in every process of a job. (NBRCOLL_ALGO=linear graphs build
// every plan still: the benchmarks predict every algorithm's time from
// them.) A benchmark's override of the setting (set_algo_override) counts
// as the setting for the graphs made while it holds.
bool auto_on_host() {
  return effective_algo().kind == Algo::Kind::kAuto && !device_process();
}
bool linear_only(const Facts& f) {
  return (f.nodes == 1 || f.plans_late) && f.auto_on_host;
}

bool is_cartesian(MPI_Comm comm) {
  int kind = MPI_UNDEFINED;
  return PMPI_Topo_test(comm, &kind) == MPI_SUCCESS && kind == MPI_CART;
}

// Whether a graph could be set up without the agreement's allreduce, its
// calls linear: made by every process of MPI_COMM_WORLD (each then makes
// every such creation from one communicator in the same order, and draws
// from that order's line: creation_line.h), on the shared communicator. Not on a Cartesian communicator: where a
// periodic dimension of 1 or 2 processes names one peer twice its two
// blocks cross (algos::EdgePairing::kCartesian), which posting order
// cannot say. Every rank decides alike: nothing here depends on what only
// one rank knows.
bool may_go_unagreed(const Facts& f) {
  return !f.cartesian && f.covers_world && shared_comm() != MPI_COMM_NULL && f.line != nullptr;
}

// Whether a graph is set up without the agreement: one that may
// (may_go_unagreed) whose calls can only run linear (linear_only), while
// its line's serials last. Its serial is then drawn (draw_serial), its
// linear tags are all 0 so its tag stride is 1 on every rank, and its cost
// rows are this rank's own (its calls never ask them).
bool without_agreement(const Facts& f) {
  return f.nodes > 0 && linear_only(f) && may_go_unagreed(f) && draw_serial(*f.line, true) >= 0;
}

// Whether a graph across nodes plans late (late_plans.h): one that could go
// without agreement (so that its set-up is the MPI's creation and
// bookkeeping), auto, and late planning on. Every rank answers alike, as in
// may_go_unagreed.
bool plans_late(const Facts& f) {
  return f.nodes > 1 && f.auto_on_host && may_go_unagreed(f) && linear_calls_before_plans() > 0;
}

// Calls in flight together use disjoint tag windows; the notes of calls in
// processes with a GPU runtime use as many tags again, above the windows;
// the IPC acks the last tag of the handle's block (tag_blocks.h), or
// MPI_TAG_UB itself on a private communicator. The stride is read off the
// plans (a plan not built is empty and adds no tag), whether or not their
// schedules are mixed yet.
void set_tag_stride(GraphInfo& info) {
  const long long stride = 1 + static_cast<long long>(std::max(algos::largest_tag(family_plans(*info.plans, false)),
                                                               algos::largest_tag(family_plans(*info.plans, true))));
  if (2 * stride >= tag_upper_bound()) throw std::runtime_error("plan tags exceed MPI_TAG_UB");
  info.tag_stride = static_cast<int>(stride);  // this rank's; set_tag_windows() makes it common
}

}  // namespace

// Their mixed schedules wait for the first call of each family
// (schedules.h); the tag stride comes from the plans alone.
void build_every_plan(algos::PlanInput&& input, GraphInfo& info, bool& reused) {
  set_node(input);
  info.plans = plan_set_for(std::move(input), PlanSetKind::kEveryPlanner, reused);
  info.mixed_lazily = true;
  info.agreed_max = info.plans->cost_terms;
  set_tag_stride(info);
}

namespace {

// Everything up to the agreement. Every rank makes the same collective calls
// whatever fails locally: the places (exchanged) or the node-list messages
// (cached places) say which ranks failed, and every rank acts alike.
// `in_world`: every process of the graph is in MPI_COMM_WORLD; `facts`:
// what every rank learns alike (Facts), set as far as this rank got.
int build_graph_info(MPI_Comm graph_comm, std::shared_ptr<GraphInfo>& out, bool& in_world, Facts& facts,
                     SetupTimes& times, Stopwatch& clock) {
  auto info = std::make_shared<GraphInfo>();
  PMPI_Comm_rank(graph_comm, &info->rank);
  PMPI_Comm_size(graph_comm, &info->size);
  const topo::NodeTopology& topology = node_topology();
  info->topo_source = topology.source;
  OwnPlace own = own_place();  // a copy: this graph adds `failed`
  algos::EdgePairing pairing = algos::EdgePairing::kListOrder;
  int rc = read_neighbours(graph_comm, info->in, info->out, pairing);
  // The node peers receive both lists in one message of at most INT_MAX entries.
  own.failed = rc != MPI_SUCCESS || info->in.size() + info->out.size() > static_cast<std::size_t>(INT_MAX) - 1;
  times.neighbours = clock.lap();

  // Where every rank lives: from the records MPI_Init gathered, when every
  // process of the graph is in MPI_COMM_WORLD and the translation of its
  // ranks is cheap; otherwise by the one exchange over the whole graph.
  // Every rank takes the same branch: `cached` depends on sizes only, and
  // under it every rank learns alike whether all processes are in
  // MPI_COMM_WORLD. Without it only the world's own group object says so,
  // which may differ between ranks; that only feeds the channel bid, which
  // the agreement combines. The cached records carry no failures:
  // the node-list messages say those.
  int world_size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const bool cached = !world_places().empty() && static_cast<long long>(info->size) * world_size <= kTranslateBudget;
  const WorldRanks world = world_ranks_of(graph_comm, cached);
  in_world = world.in_world;
  DecodedPlaces decoded;
  if (cached && in_world && info->size == world_size && world.identity) {
    decoded = world_places_for_graph();
  } else {
    std::vector<std::int64_t> records(kPlaceWords * static_cast<std::size_t>(info->size));
    if (cached && in_world) {
      for (std::size_t r = 0; r < records.size() / kPlaceWords; ++r) {
        std::copy_n(&world_places()[kPlaceWords *
                                    static_cast<std::size_t>(world.identity ? static_cast<int>(r) : world.ranks[r])],
                    kPlaceWords, &records[kPlaceWords * r]);
      }
    } else {
      std::int64_t record[kPlaceWords];
      encode_place(own, record);
      rc = PMPI_Allgather(record, kPlaceWords, MPI_INT64_T, records.data(), kPlaceWords, MPI_INT64_T, graph_comm);
      if (rc != MPI_SUCCESS) return rc;
    }
    decoded = decode_places(records.data(), info->size, config().device_map);
  }
  times.places = clock.lap();
  if (decoded.any_failed) return MPI_ERR_OTHER;  // every rank sees it: none exchanges more
  if (!decoded.derived) {
    // A node with more devices than a record holds, or ranks with different
    // NBRCOLL_DEVICE_MAPs: each rank says its own device and package, from
    // its local rank, as every rank agrees on it.
    const int device = topo::device_for_local_rank(decoded.local_rank[static_cast<std::size_t>(info->rank)],
                                                   topology.devices, config().device_map);
    int mine[2] = {device, topology.package[static_cast<std::size_t>(device)]};
    std::vector<int> all(2 * static_cast<std::size_t>(info->size));
    rc = PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, graph_comm);
    if (rc != MPI_SUCCESS) return rc;
    for (std::size_t r = 0; r < decoded.places.size(); ++r) {
      decoded.places[r].device = all[2 * r];
      decoded.places[r].package = all[2 * r + 1];
    }
    times.devices = clock.lap();
  }
  info->nodes = decoded.nodes;
  facts.nodes = decoded.nodes;
  facts.covers_world = cached && in_world && info->size == world_size;
  facts.auto_on_host = auto_on_host();
  facts.plans_late = plans_late(facts);
  facts.unagreed = without_agreement(facts);  // before anything here can throw (setup_graph)
  if (facts.plans_late) info->plan_at_call = static_cast<std::uint64_t>(linear_calls_before_plans()) + 1;
  info->any_real_out = std::any_of(info->out.begin(), info->out.end(), [](int d) { return d != MPI_PROC_NULL; });
  info->process_of = std::move(decoded.process_of);
  info->node_of.reserve(decoded.places.size());
  for (const algos::RankPlace& p : decoded.places) info->node_of.push_back(p.node);

  info->pairing = pairing;
  info->mpi_runs_linear = mpi_runs_linear(pairing, info->out);
  algos::PlanInput input;
  input.rank = info->rank;
  input.pairing = pairing;
  // One allocation per list (a back_inserter would grow each from empty).
  input.in.resize(info->in.size());
  input.out.resize(info->out.size());
  std::transform(info->in.begin(), info->in.end(), input.in.begin(), to_plan_rank);
  std::transform(info->out.begin(), info->out.end(), input.out.begin(), to_plan_rank);
  if (linear_only(facts)) {
    // A rank that could not read its lists fails the agreement, which every
    // rank enters (or, without one, stops: setup_graph).
    if (own.failed) return MPI_ERR_OTHER;
    info->linear_only = true;
    input.places = std::move(decoded.places);
    set_node(input);
    if (facts.unagreed) {
      info->unagreed = true;  // its plans are built when first needed (schedules.h); tags all 0
      info->tag_stride = 1;
      info->plans = plan_set_for(std::move(input), PlanSetKind::kLinearUntagged, times.plans_reused);
    } else {
      info->plans = plan_set_for(std::move(input), PlanSetKind::kLinear, times.plans_reused);
      set_tag_stride(*info);
    }
    times.plans = clock.lap();
    out = std::move(info);
    return MPI_SUCCESS;
  }
  rc = exchange_node_lists(graph_comm, info->rank, decoded, input, own.failed);
  times.node_lists = clock.lap();
  if (rc != MPI_SUCCESS || own.failed) return rc != MPI_SUCCESS ? rc : MPI_ERR_OTHER;
  input.places = std::move(decoded.places);
  build_every_plan(std::move(input), *info, times.plans_reused);
  times.plans = clock.lap();
  out = std::move(info);
  return MPI_SUCCESS;
}

}  // namespace

int exchange_node_lists(MPI_Comm comm, int rank, const DecodedPlaces& places, algos::PlanInput& input, bool failed) {
  return exchange_node_lists(comm, rank, node_peers(places, rank), nullptr, kNodeListTag, input, failed);
}

int exchange_node_lists(MPI_Comm comm, int rank, const std::vector<int>& peers, const std::vector<int>* comm_rank,
                        int tag, algos::PlanInput& input, bool failed) {
  NodeListSends sends;
  const int rc = post_node_lists(comm, peers, comm_rank, tag, input, failed, sends);
  return receive_node_lists(comm, rank, peers, comm_rank, tag, input, sends, rc);
}

int comm_rank_of(const std::vector<int>* comm_rank, int r) {
  return comm_rank != nullptr ? (*comm_rank)[static_cast<std::size_t>(r)] : r;
}

int post_node_lists(MPI_Comm comm, const std::vector<int>& peers, const std::vector<int>* comm_rank, int tag,
                    const algos::PlanInput& input, bool failed, NodeListSends& out) {
  // [indegree (-1: this rank failed), in-list, out-list]
  std::vector<int>& mine = out.message;
  mine.assign(1, failed ? -1 : static_cast<int>(input.in.size()));
  if (!failed) {
    mine.insert(mine.end(), input.in.begin(), input.in.end());
    mine.insert(mine.end(), input.out.begin(), input.out.end());
  }
  out.requests.assign(peers.size(), MPI_REQUEST_NULL);
  int rc = MPI_SUCCESS;
  for (std::size_t i = 0; i < peers.size() && rc == MPI_SUCCESS; ++i) {
    rc = PMPI_Isend(mine.data(), static_cast<int>(mine.size()), MPI_INT, comm_rank_of(comm_rank, peers[i]), tag, comm,
                    &out.requests[i]);
  }
  return rc;
}

int receive_node_lists(MPI_Comm comm, int rank, const std::vector<int>& peers, const std::vector<int>* comm_rank,
                       int tag, algos::PlanInput& input, NodeListSends& sent, int posted, bool keep_sends) {
  int rc = posted;
  // Each peer's message, whatever its length: matched by a probe, then received.
  std::vector<std::vector<int>> lists(peers.size());
  bool peer_failed = false;
  for (std::size_t i = 0; i < peers.size() && rc == MPI_SUCCESS; ++i) {
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    int count = 0;
    rc = PMPI_Mprobe(comm_rank_of(comm_rank, peers[i]), tag, comm, &message, &status);
    if (rc == MPI_SUCCESS) rc = PMPI_Get_count(&status, MPI_INT, &count);
    if (rc != MPI_SUCCESS) break;
    lists[i].resize(static_cast<std::size_t>(std::max(count, 1)));
    rc = PMPI_Mrecv(lists[i].data(), count, MPI_INT, &message, MPI_STATUS_IGNORE);
    const int indegree = count > 0 ? lists[i][0] : -1;
    peer_failed = peer_failed || indegree < 0 || indegree > count - 1;
  }
  int wait = MPI_SUCCESS;
  if (!keep_sends) {
    wait = PMPI_Waitall(static_cast<int>(sent.requests.size()), sent.requests.data(), MPI_STATUSES_IGNORE);
    sent.requests.clear();
  }
  if (rc != MPI_SUCCESS || wait != MPI_SUCCESS) return rc != MPI_SUCCESS ? rc : wait;
  if (peer_failed) return MPI_ERR_OTHER;  // the agreement fails every rank
  // By rank: the peers are ascending, this rank goes where it belongs.
  input.node_in.clear();
  input.node_out.clear();
  input.node_in.reserve(peers.size() + 1);
  input.node_out.reserve(peers.size() + 1);
  bool own_added = false;
  for (std::size_t i = 0; i <= peers.size(); ++i) {
    if (!own_added && (i == peers.size() || rank < peers[i])) {
      input.node_in.emplace_back(rank, input.in);
      input.node_out.emplace_back(rank, input.out);
      own_added = true;
    }
    if (i == peers.size()) break;
    // The out-list copied out, the in-list kept in the message's own vector.
    std::vector<int>& list = lists[i];
    const auto split = list.begin() + 1 + list[0];
    input.node_out.emplace_back(peers[i], std::vector<int>(split, list.end()));
    list.erase(split, list.end());
    list.erase(list.begin());
    input.node_in.emplace_back(peers[i], std::move(list));
  }
  return MPI_SUCCESS;
}

bool node_lists_arrived(MPI_Comm comm, const std::vector<int>& peers, const std::vector<int>* comm_rank, int tag,
                        std::size_t& seen) {
  for (; seen < peers.size(); ++seen) {
    int here = 0;
    if (PMPI_Iprobe(comm_rank_of(comm_rank, peers[seen]), tag, comm, &here, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return true;
    if (here == 0) return false;
  }
  return true;
}

namespace {
enum AgreementTerm { kFailedTerm, kStrideTerm, kNotSharedTerm, kSerialTerm, kNoReservationTerm, kFirstAgreedTerm };
}  // namespace

std::vector<std::int64_t> agreement_terms(const GraphInfo* mine, const ChannelBid& bid) {
  std::vector<std::int64_t> terms(kFirstAgreedTerm + kAgreedTerms, 0);
  terms[kFailedTerm] = mine == nullptr ? 1 : 0;
  terms[kStrideTerm] = mine == nullptr ? 1 : mine->tag_stride;
  terms[kNotSharedTerm] = bid.shared ? 0 : 1;
  terms[kSerialTerm] = bid.serial;
  terms[kNoReservationTerm] = bid.wants_serials ? 0 : 1;
  if (mine != nullptr) {
    std::copy_n(mine->agreed_max.begin(), std::min<std::size_t>(mine->agreed_max.size(), kAgreedTerms),
                terms.begin() + kFirstAgreedTerm);
  }
  return terms;
}

Agreement read_agreement(const std::vector<std::int64_t>& terms, int rc) {
  Agreement out;
  out.all_ok = rc == MPI_SUCCESS && terms[kFailedTerm] == 0 && terms[kStrideTerm] > 0 && terms[kStrideTerm] <= INT_MAX;
  out.tag_stride = out.all_ok ? static_cast<int>(terms[kStrideTerm]) : 1;
  out.shared = out.all_ok && terms[kNotSharedTerm] == 0;
  out.serial = terms[kSerialTerm];
  out.reserves = out.shared && terms[kNoReservationTerm] == 0 && out.serial + kLineSerials < agreed_serials();
  out.agreed_max.assign(terms.begin() + kFirstAgreedTerm, terms.end());
  return out;
}

int agree_on_setup(MPI_Comm comm, const GraphInfo* mine, Agreement& out, const ChannelBid& bid) {
  std::vector<std::int64_t> terms = agreement_terms(mine, bid);
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, terms.data(), static_cast<int>(terms.size()), MPI_INT64_T, MPI_MAX, comm);
  out = read_agreement(terms, rc);
  return rc;
}

namespace {

// What this rank bids towards the graph's channel (shared_comm.h): the
// shared communicator if it has one that reaches every rank, no other
// creation is in progress here, a serial is left and this rank's tags fit
// a block; and whether the parent's creation line needs serials
// (creation_line.h).
ChannelBid bid_for_channel(const GraphInfo* info, bool in_world, const SerialClaim& claim, const CreationLine* line) {
  ChannelBid bid;
  bid.wants_serials = wants_serials(line);
  bid.serial = claim.proposal();
  bid.shared = shared_comm() != MPI_COMM_NULL && in_world && claim.alone() && info != nullptr &&
               claim.proposal() < agreed_serials() &&
               tag_windows_within(kTagBlock, info->tag_stride, kMaxTagWindows) > 0;
  return bid;
}

// The graph's channel once every rank agreed: a block of the shared
// communicator, or a private communicator made now (every rank takes the
// same branch; quiet_copy is collective over the graph and leaves the
// graph communicator's nonblocking-collective tags as the application's
// own calls left them, shared_comm.h). Null where the copy fails.
std::shared_ptr<OwnedComm> make_channel(MPI_Comm graph_comm, const Agreement& agreed) {
  if (agreed.shared) return std::make_shared<OwnedComm>(agreed.serial, 0);
  MPI_Comm own = MPI_COMM_NULL;
  if (quiet_copy(graph_comm, &own) != MPI_SUCCESS) return nullptr;
  return std::make_shared<OwnedComm>(own);
}

// NBRCOLL_DEBUG=trace: one line per creation, each step's wall and CPU time.
void trace_setup(const GraphInfo& info, const SetupTimes& t, const char* channel) {
  if (!log_enabled(LogLevel::kTrace)) return;
  const std::string late_note = ", linear plans until its blocking call " + std::to_string(info.plan_at_call);
  auto step = [](const char* name, const StepTime& s) {
    char text[96];
    std::snprintf(text, sizeof text, "%s %.0f (cpu %.0f)", name, s.wall, s.cpu);
    return std::string(text);
  };
  log(LogLevel::kTrace, "graph setup (%d ranks, %d nodes, %s%s) in us: %s, %s, %s, %s, %s, %s, %s, %s", info.size,
      info.nodes, channel,
      info.linear_only ? (info.nodes > 1   ? late_note.c_str()
                          : t.plans_reused ? ", linear plans only, reused"
                                           : ", linear plans only")
      : t.plans_reused ? ", plans reused"
                       : "",
      step("neighbours", t.neighbours).c_str(), step("places", t.places).c_str(), step("devices", t.devices).c_str(),
      step("node lists", t.node_lists).c_str(), step("plans", t.plans).c_str(), step("agreement", t.agreement).c_str(),
      step("private comm", t.private_dup).c_str(), step("total", t.total).c_str());
}

// The rest of a set-up without agreement (without_agreement): the drawn
// serial's tag block and the tag windows of stride 1 (build_graph_info
// marked the graph unagreed; its plans and cost rows come on first use). A rank that
// failed cannot tell the others, which go on without it: it stops the job
// with one line (only running out of memory gets here).
GraphSetup setup_without_agreement(MPI_Comm graph_comm, std::shared_ptr<GraphInfo> info, CreationLine* line,
                                   const std::string& why, GraphSetup& setup, Stopwatch& clock) {
  if (!info || line == nullptr) {
    log(LogLevel::kWarn, "graph setup failed%s on this rank, which its peers cannot learn; stopping the job",
        why.c_str());
    PMPI_Abort(graph_comm, MPI_ERR_NO_MEM);
    return setup;
  }
  auto channel = std::make_shared<OwnedComm>(draw_serial(*line, false), 0);
  set_tag_windows(*info, info->tag_stride, kTagBlock);
  setup.times.total = clock.since_start();
  trace_setup(*info, setup.times, "shared communicator, no agreement");
  setup.info = std::move(info);
  setup.channel = std::move(channel);
  return setup;
}

}  // namespace

GraphSetup setup_graph(MPI_Comm graph_comm, MPI_Comm parent) {
  GraphSetup setup;
  Stopwatch clock;
  std::shared_ptr<GraphInfo> info;
  bool in_world = false;
  Facts facts;
  facts.cartesian = is_cartesian(graph_comm);
  facts.line = creation_line(parent);
  std::string why;
  try {
    if (build_graph_info(graph_comm, info, in_world, facts, setup.times, clock) != MPI_SUCCESS) info.reset();
  } catch (const std::exception& e) {
    why = std::string(": ") + e.what();
    info.reset();
    // Out of memory before this rank learnt whether its peers go on without
    // agreement: it cannot know whether they would wait for it.
    if (facts.nodes == 0 && effective_algo().kind == Algo::Kind::kAuto && !facts.cartesian) facts.unagreed = true;
  }
  if (facts.unagreed) {
    return setup_without_agreement(graph_comm, std::move(info), facts.line, why, setup, clock);
  }
  Agreement agreed;
  {
    // Serials for the line only where its graphs could draw them: a
    // graph of some processes only never goes without agreement.
    SerialClaim claim;
    const int rc =
        agree_on_setup(graph_comm, info.get(), agreed,
                       bid_for_channel(info.get(), in_world, claim, facts.covers_world ? facts.line : nullptr));
    if (rc == MPI_SUCCESS) claim.settle(agreed.serial + (agreed.reserves ? kLineSerials : 0));
  }
  // Every rank of the graph wanted them, so every rank has the line.
  if (agreed.reserves) reserve_serials(*facts.line, agreed.serial + 1);
  setup.times.agreement = clock.lap();
  // Nothing of nbrcoll's is left in flight on the graph when this returns:
  // a private communicator is made here, blocking. (An idup left pending
  // past creation broke the application's own collectives under Open MPI
  // 4.1.4, which starts the later rounds of an idup's context-id search from
  // its progress engine: tests/mpi/fresh_graph.cpp.)
  std::shared_ptr<OwnedComm> channel = agreed.all_ok ? make_channel(graph_comm, agreed) : nullptr;
  setup.times.private_dup = clock.lap();
  setup.times.total = clock.since_start();
  if (!channel) {
    log(LogLevel::kWarn, "graph setup failed%s; this communicator uses the MPI's own neighbor collectives",
        why.c_str());
    return setup;
  }
  set_tag_windows(*info, agreed.tag_stride, agreed.shared ? kTagBlock : tag_upper_bound());
  if (!info->linear_only) {
    info->agreed_max = std::move(agreed.agreed_max);
    set_cost_tables(*info, info->agreed_max.data());
  }
  trace_setup(*info, setup.times, agreed.shared ? "shared communicator" : "private communicator");
  setup.info = std::move(info);
  setup.channel = std::move(channel);
  return setup;
}

void gather_world_places() {
  const MPI_Comm shared = shared_comm();
  if (shared == MPI_COMM_NULL) return;
  int size = 0;
  PMPI_Comm_size(shared, &size);
  std::int64_t record[kPlaceWords];
  encode_place(own_place(), record);
  std::vector<std::int64_t> records(kPlaceWords * static_cast<std::size_t>(size));
  // Collective over MPI_COMM_WORLD, like the duplicate before it.
  if (PMPI_Allgather(record, kPlaceWords, MPI_INT64_T, records.data(), kPlaceWords, MPI_INT64_T, shared) == MPI_SUCCESS)
    world_places() = std::move(records);
}

WorldShape world_shape() {
  if (world_places().empty()) return {};
  const DecodedPlaces& w = world_decoded();
  std::vector<int> on_node(static_cast<std::size_t>(std::max(w.nodes, 0)), 0);
  for (const algos::RankPlace& p : w.places) {
    if (p.node >= 0 && p.node < w.nodes) ++on_node[static_cast<std::size_t>(p.node)];
  }
  return {w.nodes, on_node.empty() ? 0 : *std::max_element(on_node.begin(), on_node.end())};
}

void set_tag_windows(GraphInfo& info, int common_stride, long long tags) {
  info.tag_stride = common_stride;
  info.tag_windows = tag_windows_within(tags, common_stride, kMaxTagWindows);
}

}  // namespace nbrcoll
