#include "graph_setup.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "config.h"
#include "cost_tables.h"
#include "locality.h"
#include "log.h"
#include "node_topology.h"

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

int to_plan_rank(int mpi_rank) {
  return mpi_rank == MPI_PROC_NULL ? algos::kNoRank : mpi_rank;
}

struct Lists {
  std::vector<int> in;
  std::vector<int> out;
};

int read_neighbours(MPI_Comm comm, Lists& lists) {
  int indegree = 0;
  int outdegree = 0;
  int weighted = 0;
  int rc = PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
  if (rc != MPI_SUCCESS) return rc;
  lists.in.resize(static_cast<std::size_t>(indegree));
  lists.out.resize(static_cast<std::size_t>(outdegree));
  std::vector<int> in_w(weighted ? lists.in.size() + 1 : 0);
  std::vector<int> out_w(weighted ? lists.out.size() + 1 : 0);
  return PMPI_Dist_graph_neighbors(comm, indegree, lists.in.data(), weighted ? in_w.data() : MPI_UNWEIGHTED, outdegree,
                                   lists.out.data(), weighted ? out_w.data() : MPI_UNWEIGHTED);
}

// The ranks of `comm` that share this rank's node (real or emulated).
int split_node(MPI_Comm comm, int rank, MPI_Comm& node_comm) {
  const int per_node = config().ranks_per_node;
  if (per_node > 0) {
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    return PMPI_Comm_split(comm, world_rank / per_node, rank, &node_comm);
  }
  return PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node_comm);
}

// NI_r: (rank, in-list) of every rank on the node, sorted by rank.
int gather_node_in_lists(MPI_Comm node_comm, int rank, const std::vector<int>& my_in,
                         std::vector<std::pair<int, std::vector<int>>>& node_in) {
  int local_size = 0;
  PMPI_Comm_size(node_comm, &local_size);
  const auto n = static_cast<std::size_t>(local_size);
  std::vector<int> header(2 * n);
  int mine[2] = {rank, static_cast<int>(my_in.size())};
  int rc = PMPI_Allgather(mine, 2, MPI_INT, header.data(), 2, MPI_INT, node_comm);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<int> counts(n);
  std::vector<int> displs(n);
  for (std::size_t i = 0; i < n; ++i) counts[i] = header[2 * i + 1];
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
  std::vector<int> all(static_cast<std::size_t>(displs.back() + counts.back()));
  std::vector<int> send(my_in);
  rc = PMPI_Allgatherv(send.data(), static_cast<int>(send.size()), MPI_INT, all.data(), counts.data(), displs.data(),
                       MPI_INT, node_comm);
  if (rc != MPI_SUCCESS) return rc;
  node_in.clear();
  for (std::size_t i = 0; i < n; ++i) {
    auto first = all.begin() + displs[i];
    node_in.emplace_back(header[2 * i], std::vector<int>(first, first + counts[i]));
  }
  std::sort(node_in.begin(), node_in.end());
  return MPI_SUCCESS;
}

}  // namespace

namespace {

// Frees a communicator when the scope ends, also when plan building throws.
struct CommGuard {
  MPI_Comm comm = MPI_COMM_NULL;
  CommGuard() = default;
  CommGuard(const CommGuard&) = delete;
  CommGuard& operator=(const CommGuard&) = delete;
  ~CommGuard() {
    if (comm != MPI_COMM_NULL) PMPI_Comm_free(&comm);
  }
};

// Fields of one rank in the places exchange.
enum Place { kNodeKey, kDevice, kPackage, kHasNull, kWorldRank, kPlaceFields };

// Turns the exchanged places into dense node ids 0..nodes-1 (by node key).
void decode_places(const std::vector<int>& places, algos::PlanInput& input, GraphInfo& info) {
  const std::size_t size = places.size() / kPlaceFields;
  std::vector<int> keys;
  for (std::size_t r = 0; r < size; ++r) keys.push_back(places[kPlaceFields * r + kNodeKey]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  info.nodes = static_cast<int>(keys.size());
  for (std::size_t r = 0; r < size; ++r) {
    const int* p = &places[kPlaceFields * r];
    const auto node = std::lower_bound(keys.begin(), keys.end(), p[kNodeKey]) - keys.begin();
    input.places.push_back({static_cast<int>(node), p[kDevice], p[kPackage]});
    info.node_of.push_back(static_cast<int>(node));
    info.process_of.push_back(p[kWorldRank]);
    info.any_proc_null = info.any_proc_null || p[kHasNull] != 0;
  }
}

}  // namespace

int build_graph_info(MPI_Comm graph_comm, std::shared_ptr<GraphInfo>& out) {
  auto info = std::make_shared<GraphInfo>();
  PMPI_Comm_rank(graph_comm, &info->rank);
  PMPI_Comm_size(graph_comm, &info->size);
  Lists lists;
  int rc = read_neighbours(graph_comm, lists);
  if (rc != MPI_SUCCESS) return rc;
  info->in = lists.in;
  info->out = lists.out;
  info->any_real_out = std::any_of(lists.out.begin(), lists.out.end(), [](int d) { return d != MPI_PROC_NULL; });

  algos::PlanInput input;
  input.rank = info->rank;
  std::transform(lists.in.begin(), lists.in.end(), std::back_inserter(input.in), to_plan_rank);
  std::transform(lists.out.begin(), lists.out.end(), std::back_inserter(input.out), to_plan_rank);

  CommGuard node;
  rc = split_node(graph_comm, info->rank, node.comm);
  if (rc != MPI_SUCCESS) return rc;
  int local_rank = 0;
  PMPI_Comm_rank(node.comm, &local_rank);
  // NI_r first: it names every rank on the node, and the lowest of them is the node's key.
  rc = gather_node_in_lists(node.comm, info->rank, input.in, input.node_in);
  if (rc != MPI_SUCCESS) return rc;
  rc = gather_node_in_lists(node.comm, info->rank, input.out, input.node_out);
  if (rc != MPI_SUCCESS) return rc;

  const topo::NodeTopology& topology = node_topology();
  info->topo_source = topology.source;
  const int device = topo::device_for_local_rank(local_rank, topology.devices, config().device_map);
  const bool has_null = std::count(lists.in.begin(), lists.in.end(), MPI_PROC_NULL) +
                            std::count(lists.out.begin(), lists.out.end(), MPI_PROC_NULL) >
                        0;
  // One exchange over the whole communicator: where every rank lives.
  int world_rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  int mine[kPlaceFields] = {input.node_in.front().first, device, topology.package[static_cast<std::size_t>(device)],
                            has_null ? 1 : 0, world_rank};
  std::vector<int> places(kPlaceFields * static_cast<std::size_t>(info->size));
  rc = PMPI_Allgather(mine, kPlaceFields, MPI_INT, places.data(), kPlaceFields, MPI_INT, graph_comm);
  if (rc != MPI_SUCCESS) return rc;
  decode_places(places, input, *info);

  input.node.devices = topology.devices;
  input.node.links = topology.links;
  input.node.hops = topology.hops;
  using algos::Variant;
  info->linear = algos::build_linear_plan(input);
  info->leader = algos::build_leader_plan(input);
  info->aggregated = algos::build_aggregated_plan(input);
  info->plan = make_runnable(algos::mix_plans({{Variant::kLinear, &info->linear},
                                               {Variant::kLeader, &info->leader},
                                               {Variant::kAggregated, &info->aggregated}},
                                              input.in, input.out.size(), false),
                             info->node_of);
  info->alltoall_linear = algos::build_linear_alltoall_plan(input);
  info->alltoall_aggregated = algos::build_aggregated_alltoall_plan(input);
  info->alltoall = make_runnable(
      algos::mix_plans({{Variant::kLinear, &info->alltoall_linear}, {Variant::kAggregated, &info->alltoall_aggregated}},
                       input.in, input.out.size(), true),
      info->node_of);
  cost_terms(*info, input, info->cost_terms);
  // Calls in flight together use disjoint tag windows; the IPC acks use
  // MPI_TAG_UB itself, so every window lies below it.
  int* tag_ub = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  const long long ub = flag != 0 && tag_ub != nullptr ? *tag_ub : 32767;
  const long long stride = 1 + std::max(algos::largest_tag(info->plan.mixed), algos::largest_tag(info->alltoall.mixed));
  if (stride >= ub) return MPI_ERR_TAG;
  info->tag_stride = static_cast<int>(stride);  // this rank's; set_tag_windows() makes it common
  out = std::move(info);
  return MPI_SUCCESS;
}

void set_tag_windows(GraphInfo& info, int common_stride) {
  int* tag_ub = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  const long long ub = flag != 0 && tag_ub != nullptr ? *tag_ub : 32767;
  info.tag_stride = common_stride;
  info.tag_windows = static_cast<int>(std::clamp<long long>((ub - 1) / common_stride, 1, kMaxTagWindows));
}

}  // namespace nbrcoll
