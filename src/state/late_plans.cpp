#include "state/late_plans.h"

#include <new>
#include <string>
#include <vector>

#include "report/run_counters.h"
#include "state/cost_tables.h"
#include "state/graph_setup.h"
#include "state/places.h"
#include "state/shared_comm.h"
#include "state/stopwatch.h"
#include "state/tag_blocks.h"
#include "support/config.h"
#include "support/log.h"
#include "support/plan_summary.h"

namespace nbrcoll {

namespace {

// Written once in MPI_Init, before any graph exists; read by every creation.
int g_linear_calls = 0;

// What graph creation learnt of the graph, without its linear-only plans.
std::shared_ptr<GraphInfo> facts_of(const GraphInfo& linear) {
  auto info = std::make_shared<GraphInfo>();
  info->rank = linear.rank;
  info->size = linear.size;
  info->nodes = linear.nodes;
  info->in = linear.in;
  info->out = linear.out;
  info->any_real_out = linear.any_real_out;
  info->node_of = linear.node_of;
  info->pairing = linear.pairing;
  info->process_of = linear.process_of;
  info->topo_source = linear.topo_source;
  return info;
}

struct LateTimes {
  StepTime node_lists;
  StepTime plans;
  StepTime agreement;
  bool reused = false;
};

// The planned graph, or null on every rank where any rank failed. The node
// lists travel on the handle's channel under its ack tag, which host
// processes never send on (IPC acks are the device transport's; a graph that
// plans late is host-only): the application's own messages on the graph
// cannot meet them, nor can this handle's calls still in flight.
std::shared_ptr<GraphInfo> plan_now(const GraphInfo& linear, MPI_Comm graph_comm, CommState& state, LateTimes& t) {
  Stopwatch clock;
  std::shared_ptr<GraphInfo> info;
  algos::PlanInput input;
  bool failed = false;
  try {
    info = facts_of(linear);
    input = linear.plans->input;  // lists, places and the node's topology
  } catch (const std::bad_alloc&) {
    failed = true;
  }
  const MPI_Comm channel = channel_comm(state);
  const OwnedComm& own = *state.own;
  int rc = MPI_ERR_COMM;
  if (channel != MPI_COMM_NULL)
    rc = exchange_node_lists(channel, linear.rank, node_peers(linear.plans->input.places, linear.rank),
                             own.shared ? &linear.process_of : nullptr, own.ack_tag, input, failed);
  failed = failed || rc != MPI_SUCCESS;
  t.node_lists = clock.lap();
  if (!failed) {
    try {
      build_every_plan(std::move(input), *info, t.reused);
    } catch (const std::exception&) {
      failed = true;
    }
  }
  t.plans = clock.lap();
  Agreement agreed;
  agree_on_setup(graph_comm, failed ? nullptr : info.get(), agreed);
  t.agreement = clock.lap();
  // Every rank reads the same agreed stride, so every rank gives up alike
  // where the windows do not fit.
  const long long tags = own.shared ? kTagBlock : tag_upper_bound();
  if (!agreed.all_ok || tag_windows_within(tags, agreed.tag_stride, kMaxTagWindows) == 0) return nullptr;
  set_tag_windows(*info, agreed.tag_stride, tags);
  info->agreed_max = std::move(agreed.agreed_max);
  set_cost_tables(*info, info->agreed_max.data());
  return info;
}

}  // namespace

void agree_late_planning() {
  const MPI_Comm shared = shared_comm();
  if (shared == MPI_COMM_NULL) return;
  int least = config().short_graph_calls;
  // Collective over MPI_COMM_WORLD, like the gathers before it.
  if (PMPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT, MPI_MIN, shared) == MPI_SUCCESS) g_linear_calls = least;
}

int linear_calls_before_plans() {
  return g_linear_calls;
}

void plan_if_due(CommState& state, MPI_Comm graph_comm) {
  ++state.blocking_calls;
  const std::uint64_t due = state.info->plan_at_call;
  if (due == 0 || state.blocking_calls != due) return;
  const Stopwatch clock;
  LateTimes t;
  std::shared_ptr<GraphInfo> planned = plan_now(*state.info, graph_comm, state, t);
  if (!planned) {
    log(LogLevel::kWarn, "planning a graph at its blocking call %llu failed; its calls stay linear",
        static_cast<unsigned long long>(due));
    return;
  }
  if (log_enabled(LogLevel::kTrace))
    log(LogLevel::kTrace,
        "graph plans at its blocking call %llu (%d ranks, %d nodes%s) in us: node lists %.0f, plans %.0f, "
        "agreement %.0f, total %.0f",
        static_cast<unsigned long long>(due), planned->size, planned->nodes, t.reused ? ", plans reused" : "",
        t.node_lists.wall, t.plans.wall, t.agreement.wall, clock.since_start().wall);
  if (report::on()) report::add_late_plan(static_cast<std::uint64_t>(clock.since_start().wall * 1e3));
  log_plans(*planned);  // what graph creation says of a graph it plans
  state.info = std::move(planned);
  // Calls in flight keep what they hold; the next calls start afresh.
  state.scratch.reset();
  state.pool.reset();
}

}  // namespace nbrcoll
