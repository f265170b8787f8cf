#include "graph_setup.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config.h"
#include "cost_tables.h"
#include "locality.h"
#include "log.h"
#include "node_topology.h"
#include "places.h"

namespace nbrcoll {

namespace {

// The node's topology, loaded once per process.
const topo::NodeTopology& node_topology() {
  static const topo::NodeTopology topology = [] {
    topo::LoadResult r = topo::load_topology(config().topo);
    if (!r.error.empty())
      log(LogLevel::kWarn, "topology '%s': %s; using %s", config().topo.c_str(), r.error.c_str(),
          r.topology.source.c_str());
    return r.topology;
  }();
  return topology;
}

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

int to_plan_rank(int mpi_rank) {
  return mpi_rank == MPI_PROC_NULL ? algos::kNoRank : mpi_rank;
}

int read_neighbours(MPI_Comm comm, std::vector<int>& in, std::vector<int>& out) {
  int indegree = 0;
  int outdegree = 0;
  int weighted = 0;
  int rc = PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
  if (rc != MPI_SUCCESS) return rc;
  in.resize(static_cast<std::size_t>(indegree));
  out.resize(static_cast<std::size_t>(outdegree));
  std::vector<int> in_w(weighted ? in.size() + 1 : 0);
  std::vector<int> out_w(weighted ? out.size() + 1 : 0);
  return PMPI_Dist_graph_neighbors(comm, indegree, in.data(), weighted ? in_w.data() : MPI_UNWEIGHTED, outdegree,
                                   out.data(), weighted ? out_w.data() : MPI_UNWEIGHTED);
}

// Tag of the node-list messages on the new graph communicator. Nobody else
// can use that communicator yet: no rank hands it to the application before
// the agreement completes, which needs every rank to have entered it, and a
// rank enters it only once its node-list messages completed. Below 32767,
// the smallest MPI_TAG_UB the standard allows.
constexpr int kNodeListTag = 7411;

long long tag_upper_bound() {
  int* tag_ub = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  return flag != 0 && tag_ub != nullptr ? *tag_ub : 32767;
}

// Wall-clock steps in microseconds.
class Stopwatch {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double us = std::chrono::duration<double, std::micro>(now - last_).count();
    last_ = now;
    return us;
  }
  [[nodiscard]] double since_start() const {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
};

// The plans from the complete input (local work only).
void build_plans(algos::PlanInput& input, GraphInfo& info) {
  const topo::NodeTopology& topology = node_topology();
  input.node.devices = topology.devices;
  input.node.links = topology.links;
  input.node.hops = topology.hops;
  using algos::Variant;
  info.linear = algos::build_linear_plan(input);
  info.leader = algos::build_leader_plan(input);
  info.aggregated = algos::build_aggregated_plan(input);
  info.plan = make_runnable(algos::mix_plans({{Variant::kLinear, &info.linear},
                                              {Variant::kLeader, &info.leader},
                                              {Variant::kAggregated, &info.aggregated}},
                                             input.in, input.out.size(), false),
                            info.node_of);
  info.alltoall_linear = algos::build_linear_alltoall_plan(input);
  info.alltoall_aggregated = algos::build_aggregated_alltoall_plan(input);
  info.alltoall = make_runnable(
      algos::mix_plans({{Variant::kLinear, &info.alltoall_linear}, {Variant::kAggregated, &info.alltoall_aggregated}},
                       input.in, input.out.size(), true),
      info.node_of);
  // The cost model's prediction of this rank's time per variant and size:
  // the agreement makes them the slowest rank's, the same on every rank.
  info.agreed_max.clear();
  cost_terms(info, input, info.agreed_max);
  // Calls in flight together use disjoint tag windows; the notes of calls in
  // processes with a GPU runtime use as many tags again, above the windows;
  // the IPC acks use MPI_TAG_UB itself, so all of them lie below it.
  const long long stride = 1 + std::max(algos::largest_tag(info.plan.mixed), algos::largest_tag(info.alltoall.mixed));
  if (2 * stride >= tag_upper_bound()) throw std::runtime_error("plan tags exceed MPI_TAG_UB");
  info.tag_stride = static_cast<int>(stride);  // this rank's; set_tag_windows() makes it common
}

// Everything up to the agreement. Every rank makes the same collective calls
// whatever fails locally: the places say which ranks failed before them, and
// then every rank skips the node-list exchange alike. `private_started`: this
// rank's idup started (the places tell whether every rank's did).
int build_graph_info(MPI_Comm graph_comm, bool private_started, std::shared_ptr<GraphInfo>& out,
                     bool& all_private_started, SetupTimes& times, Stopwatch& clock) {
  all_private_started = false;
  auto info = std::make_shared<GraphInfo>();
  PMPI_Comm_rank(graph_comm, &info->rank);
  PMPI_Comm_size(graph_comm, &info->size);
  const topo::NodeTopology& topology = node_topology();
  info->topo_source = topology.source;

  OwnPlace own;
  PMPI_Comm_rank(MPI_COMM_WORLD, &own.world_rank);
  own.node_key = node_key(own.world_rank, config().ranks_per_node, host_identity());
  own.devices = topology.devices;
  own.package = topology.package;
  own.device_map_hash = hash_device_map(config().device_map);
  int rc = read_neighbours(graph_comm, info->in, info->out);
  // The node peers receive both lists in one message of at most INT_MAX entries.
  own.failed = rc != MPI_SUCCESS || info->in.size() + info->out.size() > static_cast<std::size_t>(INT_MAX);
  if (!own.failed) {
    own.indegree = static_cast<int>(info->in.size());
    own.outdegree = static_cast<int>(info->out.size());
    own.has_proc_null = std::count(info->in.begin(), info->in.end(), MPI_PROC_NULL) +
                            std::count(info->out.begin(), info->out.end(), MPI_PROC_NULL) >
                        0;
  }
  own.private_started = private_started;
  std::int64_t record[kPlaceWords];
  encode_place(own, record);
  times.neighbours = clock.lap();

  // The one exchange over the whole communicator: where every rank lives.
  std::vector<std::int64_t> records(kPlaceWords * static_cast<std::size_t>(info->size));
  const int gathered =
      PMPI_Allgather(record, kPlaceWords, MPI_INT64_T, records.data(), kPlaceWords, MPI_INT64_T, graph_comm);
  times.places = clock.lap();
  if (gathered != MPI_SUCCESS) return gathered;
  DecodedPlaces decoded = decode_places(records.data(), info->size, config().device_map);
  all_private_started = decoded.all_private_started;
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
  info->any_real_out = std::any_of(info->out.begin(), info->out.end(), [](int d) { return d != MPI_PROC_NULL; });
  info->any_proc_null = decoded.any_proc_null;
  info->process_of = std::move(decoded.process_of);
  info->places = decoded.places;
  for (const algos::RankPlace& p : info->places) info->node_of.push_back(p.node);

  algos::PlanInput input;
  input.rank = info->rank;
  std::transform(info->in.begin(), info->in.end(), std::back_inserter(input.in), to_plan_rank);
  std::transform(info->out.begin(), info->out.end(), std::back_inserter(input.out), to_plan_rank);
  rc = exchange_node_lists(graph_comm, info->rank, decoded, input);
  times.node_lists = clock.lap();
  if (rc != MPI_SUCCESS) return rc;
  input.places = std::move(decoded.places);
  build_plans(input, *info);
  times.plans = clock.lap();
  out = std::move(info);
  return MPI_SUCCESS;
}

}  // namespace

int exchange_node_lists(MPI_Comm comm, int rank, const DecodedPlaces& places, algos::PlanInput& input) {
  const std::vector<int> peers = node_peers(places, rank);
  std::vector<int> mine(input.in);
  mine.insert(mine.end(), input.out.begin(), input.out.end());
  std::vector<std::vector<int>> lists(peers.size());
  std::vector<MPI_Request> requests;
  requests.reserve(2 * peers.size());
  int rc = MPI_SUCCESS;
  for (std::size_t i = 0; i < peers.size() && rc == MPI_SUCCESS; ++i) {
    const auto p = static_cast<std::size_t>(peers[i]);
    lists[i].resize(static_cast<std::size_t>(places.indegree[p]) + static_cast<std::size_t>(places.outdegree[p]));
    requests.emplace_back();
    rc = PMPI_Irecv(lists[i].data(), static_cast<int>(lists[i].size()), MPI_INT, peers[i], kNodeListTag, comm,
                    &requests.back());
  }
  for (std::size_t i = 0; i < peers.size() && rc == MPI_SUCCESS; ++i) {
    requests.emplace_back();
    rc =
        PMPI_Isend(mine.data(), static_cast<int>(mine.size()), MPI_INT, peers[i], kNodeListTag, comm, &requests.back());
  }
  const int wait = PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS || wait != MPI_SUCCESS) return rc != MPI_SUCCESS ? rc : wait;
  input.node_in.clear();
  input.node_out.clear();
  input.node_in.emplace_back(rank, input.in);
  input.node_out.emplace_back(rank, input.out);
  for (std::size_t i = 0; i < peers.size(); ++i) {
    const auto split = lists[i].begin() + places.indegree[static_cast<std::size_t>(peers[i])];
    input.node_in.emplace_back(peers[i], std::vector<int>(lists[i].begin(), split));
    input.node_out.emplace_back(peers[i], std::vector<int>(split, lists[i].end()));
  }
  std::sort(input.node_in.begin(), input.node_in.end());
  std::sort(input.node_out.begin(), input.node_out.end());
  return MPI_SUCCESS;
}

int agree_on_setup(MPI_Comm comm, const GraphInfo* mine, Agreement& out) {
  std::vector<std::int64_t> terms(2 + kAgreedTerms, 0);
  terms[0] = mine == nullptr ? 1 : 0;
  terms[1] = mine == nullptr ? 1 : mine->tag_stride;
  if (mine != nullptr)
    std::copy_n(mine->agreed_max.begin(), std::min<std::size_t>(mine->agreed_max.size(), kAgreedTerms),
                terms.begin() + 2);
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, terms.data(), static_cast<int>(terms.size()), MPI_INT64_T, MPI_MAX, comm);
  out.all_ok = rc == MPI_SUCCESS && terms[0] == 0 && terms[1] > 0 && terms[1] <= INT_MAX;
  out.tag_stride = out.all_ok ? static_cast<int>(terms[1]) : 1;
  out.agreed_max.assign(terms.begin() + 2, terms.end());
  return rc;
}

GraphSetup setup_graph(MPI_Comm graph_comm) {
  GraphSetup setup;
  Stopwatch clock;
  // nbrcoll's own messages travel on a private communicator, an idup of the
  // graph: started first so that the exchanges below progress it, and
  // completed before this returns. Left pending past creation, it broke the
  // application's own collectives under Open MPI 4.1.4: its idup starts the
  // later rounds of its context-id search from the progress engine, so a
  // nonblocking collective (or MPI_Comm_create) the application started on
  // the graph meanwhile took a different place in the communicator's
  // sequence on different ranks: MPI_Ibarrier hung, MPI_Iallreduce returned
  // wrong sums (tests/mpi/fresh_graph.cpp). Nothing of ours is attached to
  // the graph yet, so our copy callback does not run for it.
  MPI_Comm own = MPI_COMM_NULL;
  MPI_Request pending = MPI_REQUEST_NULL;
  const bool started = PMPI_Comm_idup(graph_comm, &own, &pending) == MPI_SUCCESS;
  setup.times.private_start = clock.lap();
  std::shared_ptr<GraphInfo> info;
  bool all_started = false;
  std::string why;
  try {
    if (build_graph_info(graph_comm, started, info, all_started, setup.times, clock) != MPI_SUCCESS) info.reset();
  } catch (const std::exception& e) {
    why = std::string(": ") + e.what();
    info.reset();
  }
  Agreement agreed;
  agree_on_setup(graph_comm, all_started ? info.get() : nullptr, agreed);
  setup.times.agreement = clock.lap();
  // Where every rank started its idup (the places say so), complete it;
  // otherwise the idups that did start may never complete: they stay
  // pending (MPI cannot cancel them) and nobody waits.
  const bool private_made = all_started && PMPI_Wait(&pending, MPI_STATUS_IGNORE) == MPI_SUCCESS;
  setup.times.private_wait = clock.lap();
  setup.times.total = clock.since_start();
  if (!agreed.all_ok || !private_made) {
    if (private_made && own != MPI_COMM_NULL) PMPI_Comm_free(&own);
    log(LogLevel::kWarn, "graph setup failed%s; this communicator uses the MPI's own neighbor collectives",
        why.c_str());
    return setup;
  }
  set_tag_windows(*info, agreed.tag_stride);
  info->agreed_max = std::move(agreed.agreed_max);
  set_cost_tables(*info, info->agreed_max.data());
  const SetupTimes& t = setup.times;
  log(LogLevel::kTrace,
      "graph setup (%d ranks, %d nodes) in us: private comm start %.0f, neighbours %.0f, places %.0f, devices %.0f, "
      "node lists %.0f, plans %.0f, agreement %.0f, private comm wait %.0f, total %.0f",
      info->size, info->nodes, t.private_start, t.neighbours, t.places, t.devices, t.node_lists, t.plans, t.agreement,
      t.private_wait, t.total);
  setup.info = std::move(info);
  setup.private_comm = own;
  return setup;
}

void set_tag_windows(GraphInfo& info, int common_stride) {
  info.tag_stride = common_stride;
  info.tag_windows =
      static_cast<int>(std::clamp<long long>((tag_upper_bound() - 1) / (2LL * common_stride), 1, kMaxTagWindows));
}

}  // namespace nbrcoll
