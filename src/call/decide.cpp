#include "call/decide.h"

#include <algorithm>
#include <atomic>

#include "call/device_sides.h"
#include "call/large_counts.h"
#include "call/tuning.h"
#include "state/agreed_settings.h"
#include "state/schedules.h"
#include "support/config.h"
#include "support/log.h"
#include "transport/device/backend_loader.h"

namespace nbrcoll {

namespace {

using algos::Variant;

// Every entry point once, at NBRCOLL_DEBUG=info: proof that nbrcoll took it
// (the large-count forms by their own names).
void log_taken_once(const UserCall& c, Mode mode) {
  static std::atomic<unsigned> seen{0};
  // One bit per kind, mode and form: 5 kinds x 3 modes x 2 forms < 32.
  const unsigned bit = 1U << (static_cast<unsigned>(c.kind) + kKindCount * static_cast<unsigned>(mode) +
                              (c.large != nullptr ? 3U * kKindCount : 0U));
  if (!log_enabled(LogLevel::kInfo) || (seen.fetch_or(bit) & bit) != 0) return;
  log(LogLevel::kInfo, "nbrcoll takes %s", call_name(c, mode));
}

// The variant of every unit: rule(B(unit)), B read from the unit's send
// block or receive slot, the same number on both ends of a block in a
// correct program.
template <class Rule>
void assign_variants(const algos::Schedule& schedule, const CallLayout& layout, Rule rule,
                     std::vector<Variant>& variant) {
  const std::vector<algos::Unit>& units = schedule.mixed.units;
  variant.resize(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) {
    const algos::Unit& u = units[i];
    variant[i] = rule(u.send_block >= 0 ? layout.send_bytes(static_cast<std::size_t>(u.send_block))
                                        : layout.slot_bytes(static_cast<std::size_t>(u.slot)));
  }
}

// `pick` asked once per run of equal block sizes: blocks of one size
// choose alike (allgather blocks mostly are one size).
template <class Pick>
auto once_per_size(Pick pick) {
  return [pick, read = false, last_bytes = std::uint64_t{0}, last = Variant::kLinear](std::uint64_t b) mutable {
    if (!read || b != last_bytes) {
      read = true;
      last_bytes = b;
      last = pick(b);
    }
    return last;
  };
}

void trace(const UserCall& c, Mode mode, const CommState* state, const Decision& d, const CallScratch& s) {
  if (!d.taken()) {
    log(LogLevel::kTrace, "%s: to the MPI (%s)", call_name(c, mode), handoff_text(d.handoff));
    return;
  }
  std::size_t by[algos::kVariantCount] = {};
  for (const Variant v : s.choice.variant) ++by[static_cast<int>(v)];
  log(LogLevel::kTrace,
      "%s #%llu: own block %llu B; of %zu blocks %zu by linear, %zu by leader, %zu by aggregated; bundles %s; %s; "
      "%s transport (%s)%s",
      call_name(c, mode), static_cast<unsigned long long>(state->sequence->calls) + 1,
      static_cast<unsigned long long>(s.layout.send_bytes()), s.choice.variant.size(), by[0], by[1], by[2],
      s.choice.bundles ? "on" : "off",
      d.path != Path::kLinear ? "schedule engine"
      : d.linear_everywhere   ? "host fast path, typed messages"
                              : "host fast path",
      d.transport == TransportKind::kDevice ? "device" : "host", d.why,
      !d.repeat        ? ""
      : d.same_buffers ? "; a repeat of the last call"
                       : "; a repeat of the last call, other buffers");
}

// Whether a repeat of a call that was tuned (call/tuning.h) may keep its
// decision: the tuner counts it (every call must be counted on every rank),
// and it holds unless an agreement is due now or came since (decisions made
// while trying are never kept, and outside trying whether bundles travel
// changes only at an agreement). `begun`: the tuner that counted the call,
// for decide() to go on with where it fails.
bool repeat_holds(const Decision& kept, const UserCall& c, Mode mode, CommState& state, algos::Tuner*& begun) {
  if (!kept.tuned) return true;
  algos::Tuner* tuner = tuner_for(state, c.alltoall(), mode == Mode::kNonblocking);
  if (tuner == nullptr) return true;
  tuner->begin_call();
  begun = tuner;
  if (mode == Mode::kNonblocking) {
    // A deferred agreement's steps change nothing but at its settling
    // call, where the epoch moves on.
    agree_deferred(state, *tuner, c.alltoall());
    return tuner->epoch() == kept.tune_epoch;
  }
  return !tuner->agreement_due() && tuner->epoch() == kept.tune_epoch;
}

// The tuner of a call that auto may tune (the branches of decide() before
// it have taken the rest: a nonblocking call here may forward). Not
// persistent calls: their plan is fixed at their init.
algos::Tuner* tunable(const UserCall& c, Mode mode, CommState& state) {
  if (mode == Mode::kPersistent) return nullptr;
  return tuner_for(state, c.alltoall(), mode == Mode::kNonblocking);
}

// Whether auto hands the call to the MPI: a blocking or nonblocking call
// that goes linear by a rule every rank applies alike (not across nodes,
// or nonblocking where it may not forward: the branches of decide()
// below), in a host process, on a graph whose own collective the MPI gets
// right (GraphInfo::mpi_runs_linear). The MPI then posts the same
// messages with its own datatype handling, which measured faster than
// nbrcoll's typed linear call on Cartesian subarray faces
// (bench/results/typed-alltoallw, bench/results/cartesian-handoff).
// Not persistent calls: MPICH 4.0.2's persistent neighborhood requests fail
// in MPI_Testall (mpi.topo.np1.auto). Elsewhere a linear call is not
// handed off: docs/DESIGN.md section 5 says why.
bool mpi_takes_linear(const UserCall& c, Mode mode, const GraphInfo& info) {
  return info.mpi_runs_linear && mode != Mode::kPersistent &&
         ((mode == Mode::kNonblocking && !nonblocking_may_forward(c.alltoall(), info)) || info.nodes == 1 ||
          info.linear_only) &&
         !device_process();
}

}  // namespace

bool nonblocking_may_forward(bool alltoall, const GraphInfo& info) {
  const ForwardingProgress p = forwarding_progress_everywhere();
  return p == ForwardingProgress::kThread || (p == ForwardingProgress::kMpiLoop && !alltoall && !info.mpi_runs_linear);
}

const char* handoff_text(Handoff why) {
  switch (why) {
    case Handoff::kNone:
      return "taken";
    case Handoff::kDisabled:
      return "NBRCOLL_DISABLE=1";
    case Handoff::kNotSetUp:
      return "not a communicator nbrcoll set up";
    case Handoff::kNative:
      return "NBRCOLL_ALGO=native";
    case Handoff::kLargeCount:
      return "a count or displacement beyond int, which the MPI's large-count call takes";
    case Handoff::kArgumentError:
      return "an argument error, which the MPI reports as it would without nbrcoll";
    case Handoff::kNoChannel:
      return "this handle has no channel";
    case Handoff::kDeviceAlltoall:
      return "alltoall in a process with a GPU runtime";
    case Handoff::kDeviceNonblocking:
      return "a nonblocking or persistent call in a process with a GPU runtime";
    case Handoff::kNullRequest:
      return "a null request pointer, which the MPI reports";
    case Handoff::kMpiLinear:
      return "auto, linear by rule on a Cartesian grid the MPI pairs right: the MPI's own collective";
  }
  return "?";
}

Handoff handoff_without_state() {
  return config().disable ? Handoff::kDisabled : Handoff::kNotSetUp;
}

Decision decide(const UserCall& c, Mode mode, CommState* state, CallScratch& s) {
  Decision d;
  const auto done = [&]() -> Decision {
    if (log_enabled(LogLevel::kTrace)) trace(c, mode, state, d, s);
    return d;
  };
  const auto hand_off = [&](Handoff why) {
    d.handoff = why;
    return done();
  };

  // ---- Calls the MPI runs itself.
  const Algo algo = effective_algo();
  if (state == nullptr || config().disable) return hand_off(handoff_without_state());
  if (algo.kind == Algo::Kind::kNative) return hand_off(Handoff::kNative);
  if (algo.kind == Algo::Kind::kAuto && mpi_takes_linear(c, mode, *state->info)) return hand_off(Handoff::kMpiLinear);
  // ---- The last call on this scratch again: its decision and layout hold
  // (a tuned one's only while the tuner neither agrees nor has agreed since).
  algos::Tuner* begun = nullptr;    // the tuner this call was counted by
  if (s.trial.inbox) s.trial = {};  // a ticket whose call never started
  if (s.repeat.matches(c, mode, algo, s.args) && repeat_holds(s.repeat.decision(), c, mode, *state, begun)) {
    d = s.repeat.decision();
    d.same_buffers = c.sendbuf == s.args.sendbuf && c.recvbuf == s.args.recvbuf;
    s.args.sendbuf = c.sendbuf;
    s.args.recvbuf = c.recvbuf;
    return done();
  }
  s.forget_layout();
  const GraphInfo& info = *state->info;
  // A large-count call is taken as its int form where it has one.
  if (c.large != nullptr && !narrow(c, info.in.size(), info.out.size(), s.narrowed))
    return hand_off(Handoff::kLargeCount);
  if (!acceptable(c.large != nullptr ? s.narrowed.call : c, info.in, info.out, info.any_real_out, s.args))
    return hand_off(Handoff::kArgumentError);
  if (channel_comm(*state) == MPI_COMM_NULL) return hand_off(Handoff::kNoChannel);
  // Processes with a GPU runtime run blocking allgather(v) only.
  const bool device = device_process();
  if (device && c.alltoall()) return hand_off(Handoff::kDeviceAlltoall);
  if (device && mode != Mode::kBlocking) return hand_off(Handoff::kDeviceNonblocking);

  // ---- The blocks' sizes: what every variant is chosen from.
  log_taken_once(c, mode);
  d.error = s.layout.measure(s.args, info.in);
  if (d.error != MPI_SUCCESS) return done();

  // ---- The variant of every block, and whether bundles travel.
  const algos::Schedule& schedule = schedule_for(info, c.alltoall());
  std::vector<Variant>& variant = s.choice.variant;
  const auto all = [&](Variant v) {
    assign_variants(
        schedule, s.layout, [v](std::uint64_t) { return v; }, variant);
  };
  s.choice.bundles = false;
  // Whether every block goes linear by a rule every rank applies alike (the
  // setting, the mode, the graph; never a block's size).
  bool linear_by_rule = true;
  if (algo.is(Variant::kLinear)) {
    all(Variant::kLinear);
    d.why = "NBRCOLL_ALGO";
  } else if (info.linear_only) {
    // Set up for calls that never choose another variant (graph_setup.cpp),
    // or not before a later blocking call plans the graph (late_plans.h).
    // Not handed to the MPI's own collective, though it would post the
    // same messages, except on the Cartesian grids of mpi_takes_linear:
    // docs/DESIGN.md section 5 says why (Open MPI 4.1.4's fails on graphs
    // only some ranks know to be such; tried twice).
    all(Variant::kLinear);
    d.why =
        info.plan_at_call != 0 ? "a graph that plans late, linear until then" : "a graph with the linear plans only";
  } else if (algo.is(Variant::kLeader)) {
    // Alltoall has no leader plan.
    linear_by_rule = c.alltoall();
    all(c.alltoall() ? Variant::kLinear : Variant::kLeader);
    d.why = c.alltoall() ? "NBRCOLL_ALGO=leader, alltoall has no leader plan: linear" : "NBRCOLL_ALGO";
  } else if (algo.is(Variant::kAggregated) && device) {
    // Bundles are packed on the host.
    all(Variant::kLinear);
    d.why = "NBRCOLL_ALGO=aggregated in a process with a GPU runtime: linear";
  } else if (algo.is(Variant::kAggregated)) {
    linear_by_rule = false;
    s.choice.bundles = true;
    all(Variant::kAggregated);
    d.why = "NBRCOLL_ALGO";
  } else if (mode != Mode::kBlocking && !nonblocking_may_forward(c.alltoall(), info)) {
    // A leader or an owner forwards only inside an MPI call nbrcoll sees; a
    // rank blocked elsewhere in the MPI would stall its peers. Where every
    // process forwards from the MPI's progress loop or a thread, the
    // branches below.
    all(Variant::kLinear);
    d.why = "auto, nonblocking or persistent: linear";
  } else if (info.nodes == 1 && !device) {
    // On one node host buffers gain nothing from leaders or owners: no
    // network bytes or messages to save, only extra copies.
    all(Variant::kLinear);
    d.why = "auto, one node: linear";
  } else if (config().threshold_set || device) {
    // No cost model: leader from the threshold (device buffers always).
    const std::uint64_t threshold = config().threshold;
    linear_by_rule = c.alltoall();
    if (c.alltoall()) {
      all(Variant::kLinear);
    } else {
      assign_variants(
          schedule, s.layout,
          [threshold](std::uint64_t b) { return b >= threshold ? Variant::kLeader : Variant::kLinear; }, variant);
    }
    d.why = c.alltoall() ? "auto by threshold, alltoall: linear"
            : device     ? "auto, device process: leader for blocks >= NBRCOLL_THRESHOLD"
                         : "auto: leader for blocks >= NBRCOLL_THRESHOLD";
  } else if (algos::Tuner* tuner = begun != nullptr ? begun : tunable(c, mode, *state)) {
    // The measured choice: per block, the variant the tuner settled on, a
    // variant on trial, or the model's (call/tuning.h). Linear by rule where
    // the tuner gives linear to every size: its agreements and turn are the
    // same on every rank.
    if (begun == nullptr) tuner->begin_call();
    if (mode == Mode::kBlocking) {
      agree_if_due(*tuner, c.comm, info, c.alltoall());
    } else if (begun == nullptr) {  // else repeat_holds took its steps
      agree_deferred(*state, *tuner, c.alltoall());
    }
    linear_by_rule = tuner->linear_everywhere();
    s.choice.bundles = tuner->bundles();
    assign_variants(schedule, s.layout, once_per_size([tuner](std::uint64_t b) { return tuner->choose(b); }), variant);
    d.tuned = true;
    d.trial = tuner->trial();
    d.trying = tuner->phase() == algos::Tuner::Phase::kTrying;
    d.tune_epoch = tuner->epoch();
    if (d.trial) s.trial = take_trial_ticket(*state, *tuner, c.alltoall(), mode != Mode::kBlocking);
    d.why = d.trial ? "auto: variants on trial where the cost model ranks them close"
                    : "auto: the measured or the cost model's cheapest per block";
  } else if (mode != Mode::kBlocking && forwarding_progress_everywhere() != ForwardingProgress::kThread) {
    // Forwarded from the MPI's progress loop: only where linear's messages,
    // too, wait for both ends to enter the MPI; no bundles
    // (algos::nonblocking_variant).
    linear_by_rule = false;
    const algos::CostTable& table = info.gather_costs;
    assign_variants(schedule, s.layout,
                    once_per_size([&table](std::uint64_t b) { return algos::nonblocking_variant(table, b); }), variant);
    d.why = "auto, nonblocking, progress in the MPI's calls: the cost model's cheapest for blocks from 64 KiB";
  } else {
    // The cost model's cheapest variant at each block's size; bundles travel
    // where the table offers aggregated at all.
    linear_by_rule = false;
    const algos::CostTable& table = c.alltoall() ? info.alltoall_costs : info.gather_costs;
    s.choice.bundles =
        std::find(table.variants.begin(), table.variants.end(), Variant::kAggregated) != table.variants.end();
    assign_variants(schedule, s.layout, once_per_size([&table](std::uint64_t b) { return table.cheapest(b); }),
                    variant);
    d.why = "auto: the cost model's cheapest per block";
  }

  // ---- Transport and path.
  if (device) {
    d.transport = TransportKind::kDevice;
    d.path = Path::kEngine;
    s.routing = device_routing(info, *state->own, s);
  } else {
    d.transport = TransportKind::kHost;
    const bool all_linear =
        std::all_of(variant.begin(), variant.end(), [](Variant v) { return v == Variant::kLinear; });
    d.path = all_linear && !s.choice.bundles && !schedule.forwards(Variant::kLinear) ? Path::kLinear : Path::kEngine;
    d.linear_everywhere = linear_by_rule && d.path == Path::kLinear;
    // A tuner trying changes the variants at its own turns: not kept.
    if (d.path == Path::kLinear && !d.trying) s.repeat.remember(c, mode, algo, s.args, s.layout, d);
  }
  return done();
}

}  // namespace nbrcoll
