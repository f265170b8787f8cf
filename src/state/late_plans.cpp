#include "state/late_plans.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "report/run_counters.h"
#include "state/agreed_settings.h"
#include "state/channel_max.h"
#include "state/cost_tables.h"
#include "state/graph_setup.h"
#include "state/places.h"
#include "state/shared_comm.h"
#include "state/stopwatch.h"
#include "state/tag_blocks.h"
#include "support/config.h"
#include "support/depth_mark.h"
#include "support/log.h"
#include "support/plan_summary.h"

namespace nbrcoll {

namespace {

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
  info->mpi_runs_linear = linear.mpi_runs_linear;
  info->process_of = linear.process_of;
  info->topo_source = linear.topo_source;
  return info;
}

}  // namespace

namespace {

// Plannings alive in the process, so that the MPI's progress loop pays one
// load while there are none (look_at_late_planning).
std::atomic<int> g_live{0};

}  // namespace

// One handle's planning, spread over its calls so that no call but the one
// it plans at waits for peers (late_plans.h): the call kListsBefore calls
// before the one it plans at posts this rank's node lists to its node
// peers; from kPlansBefore calls before it on, each call looks whether
// theirs have arrived and, once they have, receives them, builds the plans
// and starts the agreement's allreduce (or looks at its next round); the
// call it plans at completes that and installs the planned graph. That
// call waits, and while it does it looks at the process's other plannings
// too: a peer waiting in its own planning call on another handle, where
// this rank has not come that far, may need this rank's rounds there
// (ranks may start nonblocking calls on different communicators in
// different orders). The node lists travel on the handle's
// channel under its ack tag, which host processes never send on (IPC acks
// are the device transport's; a graph that plans late is host-only): the
// application's own messages on the graph cannot meet them, nor can this
// handle's calls in flight. The agreement's MAX reduction travels there
// too, under the same tag (state/channel_max.h: after the node lists, which
// MPI keeps in order per sender): started by each rank at the first call
// that finds its peers' lists, advanced at each look after it and completed
// at the call it plans at.
struct LatePlanning {
  // Held by whoever steps it: the handle's call, or a look from another
  // handle's planning call or the MPI's progress loop (try_lock).
  std::mutex lock;
  std::shared_ptr<const GraphInfo> linear;  // the graph being planned
  MPI_Comm channel = MPI_COMM_NULL;
  int tag = 0;
  const std::vector<int>* comm_rank = nullptr;  // graph rank -> channel rank (in `linear`), or null: the same
  std::vector<int> peers;                       // the node's other ranks
  std::shared_ptr<GraphInfo> info;              // the planned graph, being built
  algos::PlanInput input;
  bool failed = false;
  int posted = MPI_ERR_COMM;  // what posting the node lists returned
  NodeListSends sends;
  std::size_t lists_seen = 0;  // peers whose lists have arrived (node_lists_arrived)
  bool plans_due = false;      // reached the call kPlansBefore before the one it plans at
  bool received = false;
  std::vector<std::int64_t> terms;  // the agreement, reduced in place
  int started = MPI_ERR_OTHER;      // what starting the reduction returned
  ChannelMax reduce;
  bool reused = false;
  StepTime node_lists, plans, agreement;

  // Whatever is still in flight, completed: the handle is freed or the MPI
  // finalizes before the call it plans at. Every rank of the graph made the
  // same calls on it, so every peer sent its lists, and where those calls
  // reached kPlansBefore before it, every peer starts the reduction too
  // (this rank here, if its looks had not yet found every peer's lists).
  void settle();
  // Whether the agreement is read: its reduction completed or never started.
  [[nodiscard]] bool agreed() const { return received && (started != MPI_SUCCESS || reduce.finished()); }
  // This rank's node lists, sent: after they were received, since a peer
  // looks for them only from a later call on (receive()).
  void complete_sends() {
    PMPI_Waitall(static_cast<int>(sends.requests.size()), sends.requests.data(), MPI_STATUSES_IGNORE);
    sends.requests.clear();
  }
  int receive() {
    received = true;
    // This rank's own lists are completed at the call it plans at (or at
    // settle()): a long one waits there for its peer to receive it, which
    // a peer that looks later does at a later call.
    return receive_node_lists(channel, linear->rank, peers, comm_rank, tag, input, sends, posted, true);
  }
  LatePlanning() { g_live.fetch_add(1); }
  LatePlanning(const LatePlanning&) = delete;
  LatePlanning& operator=(const LatePlanning&) = delete;
  ~LatePlanning() {
    int finalized = 1;
    PMPI_Finalized(&finalized);
    if (!finalized) settle();
    g_live.fetch_sub(1);
  }
};

namespace {

// How many blocking calls before the one a graph plans at it posts its
// node lists, and plans and starts the agreement (the first call where
// there are not that many). The agreement completes when the graph's
// slowest rank has started it, and ranks of a graph drift a few calls
// apart (each waits only for its neighbours): started one call before, the
// agreement still cost its planning call 1-2 ms on 2 emulated nodes x 8
// (1 KiB blocks, against about 1 ms a call), started five calls before,
// about 15 us (bench/results/late-planning). A graph of the default 8
// linear calls thus posts its lists at its third call: graphs that make
// one or two calls, the short-lived ones, never start planning.
constexpr std::uint64_t kListsBefore = 6;
constexpr std::uint64_t kPlansBefore = 5;

// The call `before` calls before `due`, or the first.
constexpr std::uint64_t first_call(std::uint64_t due, std::uint64_t before) {
  return due > before ? due - before : 1;
}

// Every planning in progress in this process, for MPI_Finalize.
std::mutex g_planning_lock;
std::vector<std::weak_ptr<LatePlanning>> g_plannings;

void track_planning(const std::shared_ptr<LatePlanning>& late) {
  const std::lock_guard<std::mutex> hold(g_planning_lock);
  std::erase_if(g_plannings, [](const std::weak_ptr<LatePlanning>& p) { return p.expired(); });
  g_plannings.push_back(late);
}

// The call kListsBefore before the one it plans at (or the first): this
// rank's node lists, posted.
std::shared_ptr<LatePlanning> start_planning(CommState& state) {
  auto late = std::make_shared<LatePlanning>();
  late->linear = state.info;
  const GraphInfo& linear = *late->linear;
  try {
    late->info = facts_of(linear);
    late->input = linear.plans->input;  // lists, places and the node's topology
  } catch (const std::bad_alloc&) {
    late->failed = true;
  }
  late->peers = node_peers(linear.plans->input.places, linear.rank);
  late->channel = channel_comm(state);
  late->tag = state.own->ack_tag;
  late->comm_rank = state.own->shared ? &linear.process_of : nullptr;
  Stopwatch clock;
  if (late->channel != MPI_COMM_NULL) {
    late->posted =
        post_node_lists(late->channel, late->peers, late->comm_rank, late->tag, late->input, late->failed, late->sends);
  } else {
    late->received = late->failed = true;  // nothing posted, nothing to receive: the agreement fails
  }
  late->node_lists = clock.lap();
  track_planning(late);
  return late;
}

// Once every peer's node lists have arrived (at a call from kPlansBefore
// before it on): the lists, the plans, the agreement's reduction started.
void plan_and_agree(LatePlanning& late) {
  Stopwatch clock;
  if (!late.received) late.failed = late.receive() != MPI_SUCCESS || late.failed;
  late.node_lists.wall += clock.lap().wall;
  if (!late.failed) {
    try {
      build_every_plan(std::move(late.input), *late.info, late.reused);
    } catch (const std::exception&) {
      late.failed = true;
    }
  }
  late.plans = clock.lap();
  late.terms = agreement_terms(late.failed ? nullptr : late.info.get());
  late.started = late.channel == MPI_COMM_NULL ? MPI_ERR_COMM
                                               : late.reduce.start(late.channel, late.linear->rank, late.linear->size,
                                                                   late.comm_rank, late.tag, &late.terms);
  late.agreement = clock.lap();
}

// One look without waiting, under late.lock, from the call kPlansBefore
// before the one it plans at on: the peers' lists if all have arrived (then
// the plans and the reduction's start), else the reduction's next round.
void look(LatePlanning& late) {
  if (!late.plans_due) return;  // every rank starts the reduction, or none (settle)
  if (!late.received) {
    if (late.posted != MPI_SUCCESS ||
        node_lists_arrived(late.channel, late.peers, late.comm_rank, late.tag, late.lists_seen))
      plan_and_agree(late);
    return;
  }
  if (late.started == MPI_SUCCESS) late.reduce.poll();
}

// Every planning of the process still alive but `skip`; `forget`: the
// list emptied as well (MPI_Finalize).
std::vector<std::shared_ptr<LatePlanning>> live_plannings(const LatePlanning* skip, bool forget = false) {
  std::vector<std::shared_ptr<LatePlanning>> live;
  const std::lock_guard<std::mutex> hold(g_planning_lock);
  for (const std::weak_ptr<LatePlanning>& p : g_plannings)
    if (std::shared_ptr<LatePlanning> late = p.lock(); late && late.get() != skip) live.push_back(std::move(late));
  if (forget) g_plannings.clear();
  return live;
}

// A look at every planning of the process but `busy` (whose lock the
// caller holds) that no other thread is stepping.
void look_at_others(const LatePlanning* busy) {
  for (const std::shared_ptr<LatePlanning>& late : live_plannings(busy)) {
    const std::unique_lock<std::mutex> hold(late->lock, std::try_to_lock);
    if (hold.owns_lock() && !late->agreed()) look(*late);
  }
}

// This thread steps a planning: the MPI's progress loop looks at none
// then (look_at_late_planning).
thread_local int t_stepping = 0;
struct Stepping : DepthMark {
  Stepping() : DepthMark(t_stepping) {}
};

// The call it plans at: looks until the agreement is read, at the
// process's other plannings too.
void wait_agreed(LatePlanning& late) {
  while (true) {
    look(late);
    if (late.agreed()) {
      late.complete_sends();  // every peer received them: its reduction started after
      return;
    }
    look_at_others(&late);
    sched_yield();
  }
}

// The call it plans at: the agreement, read; the planned graph, or null
// on every rank where any rank failed (`why` says what failed).
std::shared_ptr<GraphInfo> agreed_graph(LatePlanning& late, const OwnedComm& own, std::string& why) {
  Stopwatch clock;
  wait_agreed(late);
  int rc = late.started;
  if (rc == MPI_SUCCESS) rc = late.reduce.wait();  // completed: its result
  const Agreement agreed = read_agreement(late.terms, rc);
  late.agreement.wall += clock.lap().wall;
  if (!agreed.all_ok) {
    why = "a rank could not plan or agree; its calls stay linear";
    return nullptr;
  }
  // Every rank reads the same agreed stride, so every rank gives up alike
  // where the windows do not fit: the plans' tags, which grow with the
  // duplicate edges between one pair of ranks, exceed the handle's block
  // on the shared communicator (a graph planned at creation takes a
  // communicator of its own there instead).
  const long long tags = own.shared ? kTagBlock : tag_upper_bound();
  if (tag_windows_within(tags, agreed.tag_stride, kMaxTagWindows) == 0) {
    why = "its plans need " + std::to_string(2LL * agreed.tag_stride + 1) + " tags, more than the " +
          std::to_string(tags) +
          (own.shared ? " of its block on the shared communicator; its calls stay linear (NBRCOLL_SHORT_GRAPHS=0 "
                        "plans graphs at creation, where such a graph gets a communicator of its own)"
                      : " below MPI_TAG_UB; its calls stay linear");
    return nullptr;
  }
  GraphInfo& info = *late.info;
  set_tag_windows(info, agreed.tag_stride, tags);
  info.agreed_max = agreed.agreed_max;
  set_cost_tables(info, info.agreed_max.data());
  return late.info;
}

void install(CommState& state, LatePlanning& late) {
  const std::uint64_t due = state.info->plan_at_call;
  std::string why;
  std::shared_ptr<GraphInfo> planned = agreed_graph(late, *state.own, why);
  if (!planned) {
    log(LogLevel::kWarn, "planning a graph at its call %llu failed: %s", static_cast<unsigned long long>(due),
        why.c_str());
    return;
  }
  const double total = late.node_lists.wall + late.plans.wall + late.agreement.wall;
  if (log_enabled(LogLevel::kTrace)) {
    log(LogLevel::kTrace,
        "graph plans at its call %llu (%d ranks, %d nodes%s) in us, spread over its calls %llu to %llu: "
        "node lists %.0f, plans %.0f, agreement %.0f, total %.0f",
        static_cast<unsigned long long>(due), planned->size, planned->nodes, late.reused ? ", plans reused" : "",
        static_cast<unsigned long long>(first_call(due, kListsBefore)), static_cast<unsigned long long>(due),
        late.node_lists.wall, late.plans.wall, late.agreement.wall, total);
  }
  if (report::on()) report::add_late_plan(static_cast<std::uint64_t>(total * 1e3));
  log_plans(*planned);  // what graph creation says of a graph it plans
  state.info = std::move(planned);
  // Calls in flight keep what they hold; the next calls start afresh.
  state.scratch.reset();
  state.pool.reset();
}

}  // namespace

void LatePlanning::settle() {
  if (!received) {
    if (plans_due) {
      plan_and_agree(*this);
    } else {
      receive();
    }
  }
  complete_sends();
  reduce.wait();
}

void plan_if_due(CommState& state) {
  const std::uint64_t n = ++state.planning_calls;
  const std::uint64_t due = state.info->plan_at_call;
  if (due == 0 || n > due || n + kListsBefore < due) return;
  const Stepping stepping;
  if (n == first_call(due, kListsBefore)) state.late = start_planning(state);
  if (!state.late) return;
  const std::shared_ptr<LatePlanning> late = n == due ? std::move(state.late) : state.late;
  const std::lock_guard<std::mutex> hold(late->lock);
  if (n >= first_call(due, kPlansBefore)) {
    late->plans_due = true;
    look(*late);
  }
  if (n == due) install(state, *late);
}

void advance_late_planning(CommState& state) {
  if (!state.late) return;
  const Stepping stepping;
  const std::lock_guard<std::mutex> hold(state.late->lock);
  look(*state.late);
}

void settle_late_planning(CommState& state) {
  if (!state.late) return;
  const Stepping stepping;
  const std::lock_guard<std::mutex> hold(state.late->lock);
  state.late->settle();
}

void look_at_late_planning() {
  if (g_live.load(std::memory_order_relaxed) == 0 || t_stepping != 0) return;
  const Stepping stepping;
  look_at_others(nullptr);
}

void finish_late_planning() {
  const Stepping stepping;
  for (const std::shared_ptr<LatePlanning>& late : live_plannings(nullptr, true)) {
    const std::lock_guard<std::mutex> hold(late->lock);
    late->settle();
  }
}

}  // namespace nbrcoll
