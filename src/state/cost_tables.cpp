#include "state/cost_tables.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <sstream>
#include <tuple>

#include "algos/machine_check.h"
#include "state/graph_setup.h"
#include "state/plan_input.h"
#include "state/schedules.h"
#include "support/config.h"
#include "support/log.h"
#include "topo/locality.h"
#include "topo/node_topology.h"

namespace nbrcoll {

namespace {

using algos::Variant;

// The built-in machine named like the node topology's model
// (NBRCOLL_TOPO=frontier or model:frontier), else "generic".
std::string machine_for_topology(const std::string& source) {
  const std::string name = source.rfind("model:", 0) == 0 ? source.substr(6) : source;
  return algos::builtin_machine(name) ? name : "generic";
}

// What this process runs on, for checking a machine file against: the
// node topology, the ranks per node (the world's, else
// NBRCOLL_RANKS_PER_NODE), and the link classes between a node's ranks
// (local rank i on the device NBRCOLL_DEVICE_MAP gives it; one rank per
// device where the ranks per node are not known). The same on every rank
// of a job whose ranks have the same settings.
algos::RunShape run_shape() {
  constexpr int kMostRanksChecked = 1024;
  const topo::NodeTopology& t = node_topology();
  const WorldShape world = world_shape();
  algos::RunShape shape;
  shape.topology = t.source;
  shape.ranks_per_node = world.ranks_per_node > 0 ? world.ranks_per_node : std::max(config().ranks_per_node, 0);
  const int ranks = std::min(shape.ranks_per_node > 0 ? shape.ranks_per_node : t.devices, kMostRanksChecked);
  std::vector<algos::RankPlace> node_ranks;
  for (int i = 0; i < ranks; ++i) {
    const int device = topo::device_for_local_rank(i, t.devices, config().device_map);
    const auto d = static_cast<std::size_t>(device);
    node_ranks.push_back({0, device, d < t.package.size() ? t.package[d] : device});
  }
  // Nodes not known (no world records): the network counts as used.
  shape.uses = algos::classes_used(node_ranks, {t.devices, t.links, t.hops}, world.nodes != 1);
  return shape;
}

// A machine file's classes checked against this process (algos/machine_check.h):
// classes it uses that the file did not measure take the built-in's values,
// said once at NBRCOLL_DEBUG=warn.
algos::MachineModel checked(const algos::MachineModel& file, const std::string& path, const std::string& builtin) {
  const algos::RunShape now = run_shape();
  const algos::MachineCheck check = algos::check_machine(file, *algos::builtin_machine(builtin), now);
  if (check.noteworthy()) log(LogLevel::kWarn, "%s", algos::describe_check(check, file, path, builtin, now).c_str());
  return check.model;
}

algos::MachineModel load_machine(const std::string& setting) {
  const std::string fallback = machine_for_topology(node_topology().source);
  if (setting.empty()) return *algos::builtin_machine(fallback);
  if (auto m = algos::builtin_machine(setting)) return *m;
  std::ifstream in(setting);
  if (!in) {
    log(LogLevel::kWarn, "NBRCOLL_MACHINE='%s' is neither a built-in machine nor a readable file; using %s",
        setting.c_str(), fallback.c_str());
    return *algos::builtin_machine(fallback);
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string error;
  auto m = algos::parse_machine(text.str(), *algos::builtin_machine(fallback), error);
  if (!m) {
    log(LogLevel::kWarn, "NBRCOLL_MACHINE file %s: %s; using %s", setting.c_str(), error.c_str(), fallback.c_str());
    return *algos::builtin_machine(fallback);
  }
  if (m->name.empty()) m->name = setting;
  return checked(*m, setting, fallback);
}

const Variant kGatherRows[] = {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
const Variant kAlltoallRows[] = {Variant::kLinear, Variant::kAggregated};

const algos::Plan& gather_plan(const PlanSet& set, Variant v) {
  return v == Variant::kLinear ? set.linear : v == Variant::kLeader ? set.leader : set.aggregated;
}
const algos::Plan& alltoall_plan(const PlanSet& set, Variant v) {
  return v == Variant::kLinear ? set.alltoall_linear : set.alltoall_aggregated;
}

// Rows of this rank's cost terms, one per plan; a plan of the same shape,
// network count and node shapes as an earlier one (the linear allgather
// and alltoall plans, mostly) copies its row instead of evaluating it again.
class RowMaker {
 public:
  RowMaker(int ranks_on_node, std::vector<std::int64_t>& terms) : ranks_(ranks_on_node), terms_(terms) {}
  void add(const algos::Plan& plan, std::uint64_t node_blocks, std::vector<algos::LoadShape> node_shapes) {
    algos::LoadShape shape = algos::load_shape(plan);
    for (const Made& m : made_) {
      if (m.node_blocks == node_blocks && m.shape == shape && m.node_shapes == node_shapes) {
        terms_.insert(terms_.end(), m.row.begin(), m.row.end());
        return;
      }
    }
    std::vector<std::int64_t> row = algos::predict_row_ns(shape, machine_model(), ranks_, node_blocks, node_shapes);
    terms_.insert(terms_.end(), row.begin(), row.end());
    made_.push_back({std::move(shape), node_blocks, std::move(node_shapes), std::move(row)});
  }

 private:
  struct Made {
    algos::LoadShape shape;
    std::uint64_t node_blocks = 0;
    std::vector<algos::LoadShape> node_shapes;
    std::vector<std::int64_t> row;
  };
  int ranks_;
  std::vector<std::int64_t>& terms_;
  std::vector<Made> made_;
};

// Per row (kGatherRows, then kAlltoallRows): the load shapes of every rank
// on this rank's node, for the CPU work they share (algos::shared_cpu_us),
// each planned here from the node's lists, which every rank of the node
// holds. Only where the node's ranks outnumber its cores: with a core
// each, a rank's work is its own, and nothing is planned.
using NodeShapes = std::array<std::vector<algos::LoadShape>, std::size(kGatherRows) + std::size(kAlltoallRows)>;
NodeShapes node_shapes(const PlanSet& set, const algos::PlanInput& input) {
  NodeShapes node;
  if (static_cast<double>(algos::ranks_on_node(input)) <= machine_model().cores) return node;
  for (std::size_t i = 0; i < input.node_in.size(); ++i) {
    PlanSet planned;
    const bool own = input.node_in[i].first == input.rank;
    if (!own) {
      const algos::PlanInput mate = algos::node_rank_input(input, i);
      planned.linear = algos::build_linear_plan(mate);
      planned.leader = algos::build_leader_plan(mate);
      std::tie(planned.aggregated, planned.alltoall_aggregated) = algos::build_aggregated_plans(mate);
      planned.alltoall_linear = algos::build_linear_alltoall_plan(mate);
    }
    const PlanSet& plans = own ? set : planned;
    std::size_t row = 0;
    for (const Variant v : kGatherRows) node[row++].push_back(algos::load_shape(gather_plan(plans, v)));
    for (const Variant v : kAlltoallRows) node[row++].push_back(algos::load_shape(alltoall_plan(plans, v)));
  }
  return node;
}

}  // namespace

const algos::MachineModel& machine_model() {
  static const algos::MachineModel model = load_machine(config().machine);
  return model;
}

void cost_terms(const PlanSet& set, const algos::PlanInput& input, std::vector<std::int64_t>& terms) {
  // Two counts serve all five rows: per edge (linear, both alltoalls) and
  // per (source, remote node) (the deduplicating allgathers).
  const algos::NetworkBlocks blocks = algos::node_network_block_counts(input);
  RowMaker rows(algos::ranks_on_node(input), terms);
  NodeShapes node = node_shapes(set, input);
  std::size_t row = 0;
  for (const Variant v : kGatherRows)
    rows.add(gather_plan(set, v), v == Variant::kLinear ? blocks.per_edge : blocks.per_source, std::move(node[row++]));
  for (const Variant v : kAlltoallRows) rows.add(alltoall_plan(set, v), blocks.per_edge, std::move(node[row++]));
}

void linear_cost_terms(const GraphInfo& info, int ranks_on_node, std::vector<std::int64_t>& terms) {
  // Each row once, then repeated for every variant's place.
  const auto repeat = [&](const algos::Plan& plan, std::size_t rows) {
    const std::vector<std::int64_t> row = algos::predict_row_ns(plan, machine_model(), ranks_on_node, 0);
    for (std::size_t i = 0; i < rows; ++i) terms.insert(terms.end(), row.begin(), row.end());
  };
  repeat(info.plans->linear, std::size(kGatherRows));
  repeat(info.plans->alltoall_linear, std::size(kAlltoallRows));
}

void set_cost_tables(GraphInfo& info, const std::int64_t* agreed) {
  const auto take = [&agreed](algos::CostTable& model, algos::CostTable& offered, const auto& rows) {
    model = {};
    model.variants.reserve(std::size(rows));
    model.time_ns.reserve(std::size(rows));
    for (const Variant v : rows) {
      model.variants.push_back(v);
      model.time_ns.emplace_back(agreed, agreed + algos::kModelSizeCount);
      agreed += algos::kModelSizeCount;
    }
    offered = model.offered();
  };
  take(info.gather_model, info.gather_costs, kGatherRows);
  take(info.alltoall_model, info.alltoall_costs, kAlltoallRows);
}

void ensure_cost_tables(const GraphInfo& info) {
  if (!info.linear_only) return;
  ensure_linear_plans(info);
  std::call_once(info.costs_made, [&info] {
    // Every GraphInfo is made non-const (graph_setup.cpp) and shared as
    // const once set up; these members are read only after this call.
    auto& made = const_cast<GraphInfo&>(info);
    made.agreed_max.clear();
    // This rank's node's ranks: all of them on one node; a graph across
    // nodes that plans late (late_plans.h), before it does, counts its own node's.
    const int own_node = made.node_of[static_cast<std::size_t>(made.rank)];
    const auto on_node = std::count(made.node_of.begin(), made.node_of.end(), own_node);
    linear_cost_terms(made, static_cast<int>(on_node), made.agreed_max);
    set_cost_tables(made, made.agreed_max.data());
  });
}

}  // namespace nbrcoll
