// Graph creation's set-up (src/state/graph_setup, src/state/places), linked with the
// static library so its internals can be looked at:
// - the agreement: every rank gets the same maxima of GraphInfo::agreed_max
//   and the largest tag stride, and a failing rank fails every rank;
// - the places from the one exchange equal what a node split gives (local
//   rank by graph rank, device, package; dense node ids by lowest rank) on
//   every rank, on MPI_COMM_WORLD and on a subcommunicator whose ranks run in
//   another order;
// - the node lists exchanged point to point: NI_r and the out-lists of the
//   node's ranks, as MPI reports them;
// - the private communicator: an idup of the graph (congruent, no nbrcoll
//   state of its own), completed on first use; a duplicate's;
// - plan sets shared by graphs of equal planners' input.
#include <mpi.h>

#include <algorithm>
#include <initializer_list>
#include <map>

#include "algos/cost_model.h"
#include "algos/simulator.h"
#include "state/comm_state.h"
#include "state/cost_tables.h"
#include "state/creation_line.h"
#include "state/graph_setup.h"
#include "state/places.h"
#include "state/schedules.h"
#include "state/shared_comm.h"
#include "state/tag_blocks.h"
#include "support/config.h"
#include "tests/mpi/mpi_check.h"
#include "tests/mpi/test_graphs.h"
#include "topo/locality.h"
#include "topo/node_topology.h"

namespace {

using nbt::check;
using nbt::g_rank;
using nbt::g_size;

void agreement() {
  nbrcoll::GraphInfo mine;
  mine.tag_stride = 3 + g_rank;
  auto term = [](int rank, int i) -> std::int64_t {
    if (i % 3 == 0) return rank * 1000 + i;
    if (i % 3 == 1) return -rank - i;  // every rank's is negative: the maximum is rank 0's
    return (std::int64_t{1} << 40) + (rank == g_size - 1 ? i : 0);
  };
  for (int i = 0; i < nbrcoll::kAgreedTerms; ++i) mine.agreed_max.push_back(term(g_rank, i));
  nbrcoll::Agreement got;
  check(nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got) == MPI_SUCCESS, "agreement: allreduce");
  check(got.all_ok, "agreement: every rank succeeded");
  check(got.tag_stride == 2 + g_size, "agreement: largest tag stride " + std::to_string(got.tag_stride));
  check(got.agreed_max.size() == static_cast<std::size_t>(nbrcoll::kAgreedTerms), "agreement: kAgreedTerms terms");
  for (int i = 0; i < nbrcoll::kAgreedTerms && i < static_cast<int>(got.agreed_max.size()); ++i) {
    std::int64_t want = term(0, i);
    for (int r = 1; r < g_size; ++r) want = std::max(want, term(r, i));
    check(got.agreed_max[static_cast<std::size_t>(i)] == want, "agreement: term " + std::to_string(i));
  }
  // A shorter vector contributes zeros beyond its end.
  mine.agreed_max.assign(2, 7 + g_rank);
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got);
  check(got.agreed_max.size() == static_cast<std::size_t>(nbrcoll::kAgreedTerms) && got.agreed_max[1] == 6 + g_size &&
            got.agreed_max[2] == 0,
        "agreement: short vector");
  // The last rank failed: nobody succeeds.
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, g_rank == g_size - 1 ? nullptr : &mine, got);
  check(!got.all_ok, "agreement: one failing rank fails all");
  // The channel: the shared communicator only if every rank bids for it;
  // the serial is the largest proposal either way.
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got, {true, 10 + 3 * g_rank});
  check(got.all_ok && got.shared && got.serial == 10 + 3 * (g_size - 1),
        "agreement: every rank bids: shared, largest serial");
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got, {g_rank != 0, 50 - g_rank});
  check(got.all_ok && !got.shared && got.serial == 50, "agreement: one rank cannot: not shared");
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, g_rank == 1 % g_size ? nullptr : &mine, got, {true, 1});
  check(!got.all_ok && !got.shared, "agreement: a failing rank: not shared either");
  // Serials for the parent's creation line: only where every rank wants
  // them, the graph is shared and they fit below the agreed bound.
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got, {true, 10, true});
  check(got.reserves, "agreement: every rank wants serials: reserved");
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got, {true, 10, g_rank != g_size - 1});
  check(!got.reserves, "agreement: one rank does not want serials: none reserved");
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got, {g_rank != 0, 10, true});
  check(!got.reserves, "agreement: not shared: no serials reserved");
  const std::int64_t bound = nbrcoll::agreed_serials();
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got, {true, bound - nbrcoll::kLineSerials - 1, true});
  check(got.shared && got.reserves, "agreement: the last serials below the agreed bound: reserved");
  nbrcoll::agree_on_setup(MPI_COMM_WORLD, &mine, got, {true, bound - nbrcoll::kLineSerials, true});
  check(got.shared && !got.reserves, "agreement: serials past the agreed bound: none reserved");
}

// Every rank's (node, device, package) as the node split gave them: a node
// communicator (emulated nodes: world rank / k; else shared memory), the local
// rank in it, the device and package from this process's topology, node ids
// by the lowest graph rank of each node.
std::vector<nbrcoll::algos::RankPlace> places_by_node_split(MPI_Comm graph) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(graph, &rank);
  MPI_Comm_size(graph, &size);
  MPI_Comm node = MPI_COMM_NULL;
  const int per_node = nbrcoll::config().ranks_per_node;
  if (per_node > 0)
    MPI_Comm_split(graph, g_rank / per_node, rank, &node);
  else
    MPI_Comm_split_type(graph, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local = 0;
  int lowest = rank;
  MPI_Comm_rank(node, &local);
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  const nbrcoll::topo::NodeTopology topology = nbrcoll::topo::load_topology(nbrcoll::config().topo).topology;
  const int device = nbrcoll::topo::device_for_local_rank(local, topology.devices, nbrcoll::config().device_map);
  int mine[3] = {lowest, device, topology.package[static_cast<std::size_t>(device)]};
  std::vector<int> all(3 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, graph);
  std::vector<int> keys;
  for (int r = 0; r < size; ++r) keys.push_back(all[3 * static_cast<std::size_t>(r)]);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<nbrcoll::algos::RankPlace> places;
  for (int r = 0; r < size; ++r) {
    const int* p = &all[3 * static_cast<std::size_t>(r)];
    places.push_back({static_cast<int>(std::lower_bound(keys.begin(), keys.end(), p[0]) - keys.begin()), p[1], p[2]});
  }
  return places;
}

MPI_Comm create(MPI_Comm comm, const Graph& g, int rank, bool pmpi) {
  const auto& in = g.in[static_cast<std::size_t>(rank)];
  const auto& out = g.out[static_cast<std::size_t>(rank)];
  MPI_Comm graph = MPI_COMM_NULL;
  const int rc = pmpi ? PMPI_Dist_graph_create_adjacent(comm, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                                        static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED,
                                                        MPI_INFO_NULL, 0, &graph)
                      : MPI_Dist_graph_create_adjacent(comm, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                                       static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED,
                                                       MPI_INFO_NULL, 0, &graph);
  check(rc == MPI_SUCCESS, g.name + ": creation");
  return graph;
}

// All ranks of `comm` hold the same `values`.
bool same_everywhere(MPI_Comm comm, std::vector<std::int64_t> values) {
  std::vector<std::int64_t> low(values);
  MPI_Allreduce(MPI_IN_PLACE, low.data(), static_cast<int>(low.size()), MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MAX, comm);
  return low == values;
}

std::vector<int> plan_ranks(std::vector<int> list) {
  for (int& r : list) r = r == MPI_PROC_NULL ? nbrcoll::algos::kNoRank : r;
  return list;
}

// The planners' input of graph rank `rank`, from the whole graph.
nbrcoll::algos::PlanInput whole_graph_input(const Graph& g, const nbrcoll::GraphInfo& info, int rank) {
  namespace algos = nbrcoll::algos;
  algos::PlanInput input;
  input.rank = rank;
  input.in = plan_ranks(g.in[static_cast<std::size_t>(rank)]);
  input.out = plan_ranks(g.out[static_cast<std::size_t>(rank)]);
  input.places = info.plans->input.places;
  for (int r = 0; r < info.size; ++r) {
    if (info.node_of[static_cast<std::size_t>(r)] != info.node_of[static_cast<std::size_t>(rank)]) continue;
    input.node_in.emplace_back(r, plan_ranks(g.in[static_cast<std::size_t>(r)]));
    input.node_out.emplace_back(r, plan_ranks(g.out[static_cast<std::size_t>(r)]));
  }
  const nbrcoll::topo::NodeTopology topology = nbrcoll::topo::load_topology(nbrcoll::config().topo).topology;
  input.node.devices = topology.devices;
  input.node.links = topology.links;
  input.node.hops = topology.hops;
  // Every rank loads the same machine here, so the agreed value is its own.
  input.remote_leaders = algos::remote_leaders_for(nbrcoll::machine_model());
  return input;
}

// What the agreed cost terms must be, recomputed apart from graph setup:
// each rank's plans from the whole graph (every rank knows it here), and
// those of every rank on its node for the CPU work they share, the model's
// per-size rule (predict_rank_us) for every variant and size, and the
// maximum over ranks.
std::vector<std::int64_t> expected_cost_terms(MPI_Comm comm, const Graph& g, const nbrcoll::GraphInfo& info) {
  namespace algos = nbrcoll::algos;
  using algos::Variant;
  const algos::MachineModel& m = nbrcoll::machine_model();
  const algos::PlanInput input = whole_graph_input(g, info, info.rank);
  const int ranks = algos::ranks_on_node(input);
  std::vector<std::int64_t> terms;
  const auto rows = [&](std::initializer_list<std::pair<Variant, algos::Planner>> planners, bool alltoall) {
    for (const auto& [v, planner] : planners) {
      const algos::Plan plan = planner(input);
      std::vector<algos::Plan> node;
      for (const auto& [r, list] : input.node_in) node.push_back(planner(whole_graph_input(g, info, r)));
      for (const std::uint64_t b : algos::model_sizes()) {
        std::vector<double> node_cpu;
        for (const algos::Plan& p : node) node_cpu.push_back(algos::rank_cpu_us(algos::rank_load(p, b), m));
        const double us = algos::predict_rank_us(algos::rank_load(plan, b), m, ranks,
                                                 algos::node_network_bytes(input, v, alltoall, b), node_cpu);
        terms.push_back(static_cast<std::int64_t>(std::min(us * 1000.0, 9.0e18)));
      }
    }
  };
  rows({{Variant::kLinear, algos::build_linear_plan},
        {Variant::kLeader, algos::build_leader_plan},
        {Variant::kAggregated, algos::build_aggregated_plan}},
       false);
  rows({{Variant::kLinear, algos::build_linear_alltoall_plan},
        {Variant::kAggregated, algos::build_aggregated_alltoall_plan}},
       true);
  MPI_Allreduce(MPI_IN_PLACE, terms.data(), static_cast<int>(terms.size()), MPI_INT64_T, MPI_MAX, comm);
  return terms;
}

// Through nbrcoll: the state every rank holds for the new graph.
void created_state(MPI_Comm comm, const Graph& g) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm graph = create(comm, g, rank, false);
  nbrcoll::CommState* state = nbrcoll::find_state(graph);
  int have = state != nullptr ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, comm);
  check(have == 1, g.name + ": every rank has nbrcoll state");
  if (have == 0) {
    MPI_Comm_free(&graph);
    return;
  }
  const nbrcoll::GraphInfo& info = *state->info;
  const auto want = places_by_node_split(graph);
  check(info.plans->input.places.size() == want.size(), g.name + ": one place per rank");
  std::vector<std::int64_t> flat{info.nodes, info.tag_stride, info.tag_windows};
  for (std::size_t r = 0; r < want.size() && r < info.plans->input.places.size(); ++r) {
    const auto& p = info.plans->input.places[r];
    check(p.node == want[r].node && p.device == want[r].device && p.package == want[r].package &&
              info.node_of[r] == p.node,
          g.name + ": place of rank " + std::to_string(r) + " is (" + std::to_string(p.node) + "," +
              std::to_string(p.device) + "," + std::to_string(p.package) + "), the node split gives (" +
              std::to_string(want[r].node) + "," + std::to_string(want[r].device) + "," +
              std::to_string(want[r].package) + ")");
    flat.insert(flat.end(), {p.node, p.device, p.package});
  }
  // A linear-only graph's rows are made when first asked (this rank's own).
  nbrcoll::ensure_cost_tables(info);
  check(info.agreed_max.size() == static_cast<std::size_t>(nbrcoll::kAgreedTerms), g.name + ": kAgreedTerms terms");
  // A graph whose calls can only run linear (auto on one node here) builds
  // the linear plans alone: no node lists, no other planner, no cost model.
  const nbrcoll::Algo algo = nbrcoll::effective_algo();
  const bool only_linear = algo.kind == nbrcoll::Algo::Kind::kAuto ? info.nodes == 1
                                                                   : !algo.is(nbrcoll::algos::Variant::kLeader) &&
                                                                         !algo.is(nbrcoll::algos::Variant::kAggregated);
  check(info.linear_only == only_linear, g.name + ": linear plans alone exactly where the calls can only run linear (" +
                                             std::to_string(info.nodes) + " nodes)");
  if (info.linear_only) {
    check(info.plans->leader.recvs.empty() && info.plans->leader.sends.empty() &&
              info.plans->aggregated.bundle_sends.empty() &&
              nbrcoll::schedule_for(info, false).mixed.variants ==
                  std::vector<nbrcoll::algos::Variant>{nbrcoll::algos::Variant::kLinear},
          g.name + ": a linear-only graph has no other plan");
    // Its cost rows are all linear's.
    const std::size_t row = nbrcoll::algos::kModelSizeCount;
    bool rows_linear = info.agreed_max.size() == 5 * row;
    for (std::size_t i = 0; rows_linear && i < info.agreed_max.size(); ++i)
      rows_linear = info.agreed_max[i] == info.agreed_max[i < 3 * row ? i % row : 3 * row + i % row];
    check(rows_linear, g.name + ": a linear-only graph's cost rows are linear's");
  } else {
    // The cost model's tables come from the agreed terms (its first row first).
    bool from_agreed = !info.gather_model.time_ns.empty();
    for (std::size_t i = 0; from_agreed && i < info.gather_model.time_ns[0].size(); ++i)
      from_agreed = info.gather_model.time_ns[0][i] == static_cast<std::uint64_t>(info.agreed_max[i]);
    check(from_agreed, g.name + ": cost tables from the agreed terms");
    check(expected_cost_terms(comm, g, info) == info.agreed_max,
          g.name + ": agreed terms are the per-size model's maxima over ranks");
  }
  // A linear-only graph of every world process in a process without
  // MPI_THREAD_MULTIPLE (this test's) is set up without the agreement: its
  // serial is drawn from the upper half (the same on every rank, checked
  // below), its tags are all 0 (stride 1), and its cost rows are each
  // rank's own. (Under MPI_THREAD_MULTIPLE it draws from its parent's
  // creation line once an agreement reserved serials there:
  // mpi.short_lived.*.thread_multiple.)
  int world = 0;
  int provided = MPI_THREAD_SINGLE;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Query_thread(&provided);
  const bool unagreed =
      info.linear_only && info.size == world && provided != MPI_THREAD_MULTIPLE && nbrcoll::config().shared_comm;
  check(info.unagreed == unagreed, g.name + ": set up without agreement exactly when it may be");
  if (unagreed) {
    check(info.tag_stride == 1 && state->own->serial >= nbrcoll::agreed_serials(),
          g.name + ": set up without agreement: tag stride 1, a serial of the upper half");
  } else {
    check(!state->own->shared || state->own->serial < nbrcoll::agreed_serials(),
          g.name + ": an agreed serial lies below the unagreed half");
    if (!info.linear_only) flat.insert(flat.end(), info.agreed_max.begin(), info.agreed_max.end());
  }
  check(same_everywhere(comm, flat), g.name + ": places, strides and agreed terms equal on every rank");

  // The channel: a tag block of the shared communicator (the same serial
  // on every rank), or, with NBRCOLL_SHARED_COMM=0, a private communicator
  // congruent to the graph.
  const nbrcoll::OwnedComm& own = *state->own;
  const bool want_shared = nbrcoll::config().shared_comm;
  check(own.shared == want_shared && (own.comm == nbrcoll::shared_comm()) == want_shared,
        g.name + ": the channel is " + (want_shared ? "the shared communicator" : "a private communicator"));
  check(same_everywhere(comm, {own.shared ? 1 : 0, own.serial, own.tag_base, own.ack_tag}),
        g.name + ": the same serial and tag block on every rank");
  if (own.shared) {
    check(own.handle == 0 && own.tag_base == nbrcoll::tag_block_base(own.serial, 0) &&
              own.ack_tag == own.tag_base + nbrcoll::kTagBlock - 1,
          g.name + ": the graph takes handle 0 of its serial's blocks");
    const long long used = 2LL * info.tag_stride * info.tag_windows;
    check(info.tag_windows >= 1 && used < nbrcoll::kTagBlock, g.name + ": windows and notes fit the block");
  } else {
    int congruent = MPI_UNEQUAL;
    if (own.comm != MPI_COMM_NULL) MPI_Comm_compare(own.comm, graph, &congruent);
    check(own.comm != MPI_COMM_NULL && congruent == MPI_CONGRUENT,
          g.name + ": private communicator congruent to the graph");
    check(own.comm == MPI_COMM_NULL || nbrcoll::find_state(own.comm) == nullptr, g.name + ": no nbrcoll state on it");
    check(own.comm != graph, g.name + ": private communicator is not the graph");
  }

  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(graph, &dup);
  nbrcoll::CommState* dup_state = nbrcoll::find_state(dup);
  check(dup_state != nullptr && dup_state->info == state->info, g.name + ": a duplicate shares the plans");
  if (dup_state != nullptr) {
    const MPI_Comm dup_own = nbrcoll::channel_comm(*dup_state);
    const nbrcoll::OwnedComm& d = *dup_state->own;
    if (want_shared) {
      check(dup_own == own.comm && d.shared && d.serial == own.serial && d.handle == 1 &&
                d.tag_base == nbrcoll::tag_block_base(own.serial, 1),
            g.name + ": a duplicate takes the next tag block of its graph");
    } else {
      check(dup_own != MPI_COMM_NULL && dup_own != own.comm, g.name + ": a duplicate's own private communicator");
    }
  }
  MPI_Comm_free(&dup);
  MPI_Comm_free(&graph);
}

// The node lists, on a graph made by PMPI (no nbrcoll state): each rank's
// NI_r and out-lists are those of its node's ranks as the MPI reports them.
void node_lists(MPI_Comm comm, const Graph& g) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm graph = create(comm, g, rank, true);
  nbrcoll::algos::PlanInput input;
  input.in = plan_ranks(g.in[static_cast<std::size_t>(rank)]);
  input.out = plan_ranks(g.out[static_cast<std::size_t>(rank)]);
  nbrcoll::OwnPlace own;
  // Emulated nodes as configured, else nodes of two world ranks.
  const int per_node = nbrcoll::config().ranks_per_node > 0 ? nbrcoll::config().ranks_per_node : 2;
  own.node_key = nbrcoll::node_key(g_rank, per_node, "");
  std::int64_t record[nbrcoll::kPlaceWords];
  nbrcoll::encode_place(own, record);
  std::vector<std::int64_t> records(nbrcoll::kPlaceWords * static_cast<std::size_t>(size));
  MPI_Allgather(record, nbrcoll::kPlaceWords, MPI_INT64_T, records.data(), nbrcoll::kPlaceWords, MPI_INT64_T, graph);
  const nbrcoll::DecodedPlaces places = nbrcoll::decode_places(records.data(), size, {});
  check(nbrcoll::exchange_node_lists(graph, rank, places, input) == MPI_SUCCESS, g.name + ": node-list exchange");
  std::vector<std::pair<int, std::vector<int>>> want_in;
  std::vector<std::pair<int, std::vector<int>>> want_out;
  for (int r = 0; r < size; ++r) {
    if (places.places[static_cast<std::size_t>(r)].node != places.places[static_cast<std::size_t>(rank)].node) continue;
    want_in.emplace_back(r, plan_ranks(g.in[static_cast<std::size_t>(r)]));
    want_out.emplace_back(r, plan_ranks(g.out[static_cast<std::size_t>(r)]));
  }
  check(input.node_in == want_in, g.name + ": NI_r (in-lists of the node's ranks, by rank)");
  check(input.node_out == want_out, g.name + ": out-lists of the node's ranks, by rank");
  MPI_Comm_free(&graph);
}

// Graphs of equal planners' input share one plan set (state/plan_set.h),
// made once; a graph whose input differs on every rank (a self edge more)
// gets its own; a set outlives the graph that made it. A linear-only
// graph's plans are its own. The agreed cost terms of every graph, shared
// set or not, are checked against the planners in created_state.
void plans_shared(MPI_Comm comm, const Graph& g) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Graph other = g;
  other.name = g.name + " with self edges";
  for (int r = 0; r < size; ++r) {
    other.in[static_cast<std::size_t>(r)].push_back(r);
    other.out[static_cast<std::size_t>(r)].push_back(r);
  }
  MPI_Comm a = create(comm, g, rank, false);
  MPI_Comm b = create(comm, g, rank, false);
  MPI_Comm c = create(comm, other, rank, false);
  const nbrcoll::CommState* sa = nbrcoll::find_state(a);
  const nbrcoll::CommState* sb = nbrcoll::find_state(b);
  const nbrcoll::CommState* sc = nbrcoll::find_state(c);
  check(sa != nullptr && sb != nullptr && sc != nullptr, g.name + ": three graphs set up");
  if (sa == nullptr || sb == nullptr || sc == nullptr) return;
  // Every kind of set-up shares: every planner's plans, a linear-only
  // graph's plans made at creation, or those its first call makes (without
  // the agreement).
  check(sa->info->plans == sb->info->plans, g.name + ": equal input, one plan set");
  check(sa->info->tag_stride == sb->info->tag_stride, g.name + ": equal input, the same tag stride");
  if (!sa->info->linear_only)
    check(sa->info->agreed_max == sb->info->agreed_max, g.name + ": equal input, the same agreed terms");
  check(sc->info->plans != sa->info->plans, other.name + ": another input, another plan set");
  // One allgather of ranks into guarded slots on a (its family's schedule
  // is made by the first call where it waits), then on b after a is freed.
  const std::vector<int>& in = g.in[static_cast<std::size_t>(rank)];
  const auto allgather_right = [&](MPI_Comm on) {
    std::vector<int> got(in.size() + 2, -7);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, got.data() + 1, 1, MPI_INT, on);
    bool right = got.front() == -7 && got.back() == -7;
    for (std::size_t i = 0; i < in.size(); ++i) right = right && got[i + 1] == (in[i] == MPI_PROC_NULL ? -7 : in[i]);
    return right;
  };
  check(allgather_right(a), g.name + ": an allgather on the first graph of a plan set");
  MPI_Comm_free(&a);
  check(allgather_right(b), g.name + ": an allgather on a graph whose plan set's maker was freed");
  MPI_Comm_free(&b);
  MPI_Comm_free(&c);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nbt::begin();
  agreement();
  // On MPI_COMM_WORLD and on a subcommunicator of all ranks whose graph ranks
  // run backwards (node keys stay world ranks: the lowest graph rank of a
  // node is then its highest world rank).
  MPI_Comm reversed = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &reversed);
  MPI_Comm odd = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &odd);
  for (MPI_Comm comm : {MPI_COMM_WORLD, reversed, odd}) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    const std::string where = comm == MPI_COMM_WORLD ? "world" : comm == reversed ? "reversed" : "odd/even";
    for (const Graph& g :
         {random_graph(size, where + " random", 0.5, 11, true, true, true), empty_graph(size, where + " empty")}) {
      created_state(comm, g);
      node_lists(comm, g);
      plans_shared(comm, g);
    }
  }
  MPI_Comm_free(&odd);
  MPI_Comm_free(&reversed);
  return nbt::finish();
}
