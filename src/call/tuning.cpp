#include "call/tuning.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "algos/dissemination.h"
#include "state/agreed_settings.h"
#include "support/config.h"
#include "support/log.h"

namespace nbrcoll {

namespace {

// The variants some tuner of this process has run in a full run of trials
// (bit v): a later tuner times them from their first run. A process's first
// calls of a plan take longer than its later ones (connections, and on the
// emulated cluster more: bench/RESULTS.md, "A process's first call").
std::atomic<unsigned> warm_variants{0};

std::string size_text(std::uint64_t b) {
  if (b >= (std::uint64_t{1} << 20) && b % (std::uint64_t{1} << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

void log_settled(const algos::Tuner& t, int k, bool alltoall, bool nonblocking) {
  std::string times;
  const auto times_ns = t.last_times(k);
  for (int v = 0; v < algos::kVariantCount; ++v) {
    if (times_ns[static_cast<std::size_t>(v)] < 0) continue;
    times += std::string(times.empty() ? "" : ", ") + algos::variant_name(static_cast<algos::Variant>(v)) + " " +
             std::to_string(times_ns[static_cast<std::size_t>(v)] / 1000);
  }
  const int s = t.settled(k);
  log(LogLevel::kInfo, "auto measured %s%s blocks of %s-%s B at call %llu: %s (slowest rank's median us a call: %s)",
      nonblocking ? "nonblocking " : "", alltoall ? "alltoall" : "allgather", size_text(algos::bucket_low(k)).c_str(),
      size_text(algos::bucket_high(k)).c_str(), static_cast<unsigned long long>(t.calls()),
      s >= 0 ? algos::variant_name(static_cast<algos::Variant>(s)) : "the model's choice (too few timings)",
      times.empty() ? "none" : times.c_str());
}

template <class Tuning>
auto& slot(Tuning& h, bool alltoall, bool nonblocking) {
  if (nonblocking) return alltoall ? h.nonblocking_alltoall : h.nonblocking_gather;
  return alltoall ? h.alltoall : h.gather;
}

// A nonblocking tuner's agreement: its reduction starts kStartCalls after
// the nominal call (the calls in flight there, a start-and-wait loop's
// one or a few, report first) and settles after as many more calls as its
// rounds take, looked at once a call, with a margin. Every rank computes
// the same from the graph's size.
algos::AgreementDeferral nonblocking_deferral(const GraphInfo& info) {
  constexpr std::uint64_t kStartCalls = 2;
  constexpr std::uint64_t kMarginCalls = 8;
  const auto rounds = static_cast<std::uint64_t>(algos::dissemination_rounds(info.size));
  return {kStartCalls, kStartCalls + rounds + kMarginCalls};
}

void settled_now(algos::Tuner& tuner, const std::vector<std::int64_t>& most, const GraphInfo& info, bool alltoall,
                 bool nonblocking) {
  const std::vector<int> settled = tuner.settle(most);
  warm_variants.fetch_or(tuner.warm(), std::memory_order_relaxed);
  if (info.rank == 0 && log_enabled(LogLevel::kInfo)) {
    for (const int k : settled) log_settled(tuner, k, alltoall, nonblocking);
  }
  if (log_enabled(LogLevel::kTrace)) {
    log(LogLevel::kTrace, "auto's %stiming agreement %llu at call %llu: %zu sizes settled, now %s",
        nonblocking ? "nonblocking " : "", static_cast<unsigned long long>(tuner.epoch()),
        static_cast<unsigned long long>(tuner.calls()), settled.size(),
        tuner.phase() == algos::Tuner::Phase::kTrying     ? "trying"
        : tuner.phase() == algos::Tuner::Phase::kWatching ? "watching"
                                                          : "closed");
  }
}

// The handle's agreement in flight, completed, and its tuner settled on it.
void settle_pending(HandleTuning& h) {
  const std::unique_ptr<DeferredAgreement> p = std::move(h.pending);
  settled_now(*slot(h, p->alltoall(), true), p->complete(), *h.info, p->alltoall(), true);
}

}  // namespace

algos::Tuner* tuner_for(CommState& state, bool alltoall, bool nonblocking) {
  const double factor = config().tune_factor;
  if (factor <= 0) return nullptr;
  if (!state.tuning || state.tuning->info != state.info) {
    state.tuning = std::make_shared<HandleTuning>();
    state.tuning->info = state.info;
  }
  HandleTuning& h = *state.tuning;
  std::optional<algos::Tuner>& t = slot(h, alltoall, nonblocking);
  if (!t) {
    const GraphInfo& info = *h.info;
    const algos::AgreementDeferral deferral = nonblocking ? nonblocking_deferral(info) : algos::AgreementDeferral{};
    const unsigned cold = ~warm_variants.load(std::memory_order_relaxed);
    if (nonblocking && forwarding_progress_everywhere() != ForwardingProgress::kThread) {
      // The MPI's progress loop forwards (allgathers only: decide.cpp):
      // the rule of algos::nonblocking_variant from its floor, and below
      // it forwarding only where timed faster than linear.
      h.loop_model = info.gather_model;
      h.loop_model.drop(algos::Variant::kAggregated);
      h.loop_offered = info.gather_costs;
      h.loop_offered.drop(algos::Variant::kAggregated);
      t.emplace(h.loop_model, h.loop_offered, factor, deferral, algos::kForwardedNonblockingBlock, cold);
    } else if (alltoall) {
      t.emplace(info.alltoall_model, info.alltoall_costs, factor, deferral, 0, cold);
    } else {
      t.emplace(info.gather_model, info.gather_costs, factor, deferral, 0, cold);
    }
    if (nonblocking) h.inbox[alltoall ? 1 : 0] = std::make_shared<TrialInbox>();
  }
  return &*t;
}

void agree_if_due(algos::Tuner& tuner, MPI_Comm graph_comm, const GraphInfo& info, bool alltoall) {
  if (!tuner.agreement_due()) return;
  const std::vector<std::int64_t> mine = tuner.payload();
  std::vector<std::int64_t> sum(mine.size(), 0);
  if (PMPI_Allreduce(mine.data(), sum.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX, graph_comm) !=
      MPI_SUCCESS) {
    log(LogLevel::kWarn, "auto's timing agreement failed; nothing settles at this call");
    sum.assign(mine.size(), 0);
  }
  settled_now(tuner, sum, info, alltoall, false);
}

void agree_deferred(CommState& state, algos::Tuner& tuner, bool alltoall) {
  HandleTuning& h = *state.tuning;
  if (TrialInbox& inbox = *h.inbox[alltoall ? 1 : 0]; inbox.filled.load(std::memory_order_acquire)) {
    const std::lock_guard<std::mutex> lock(inbox.lock);
    inbox.filled.store(false, std::memory_order_relaxed);
    for (const auto& [trial, ns] : inbox.done) tuner.record(trial, ns);
    inbox.done.clear();
  }
  if (h.pending && h.pending->alltoall() == alltoall && tuner.settle_due()) {
    settle_pending(h);
  } else if (h.pending) {
    h.pending->look();
  }
  if (!tuner.agreement_due()) return;
  if (h.pending) settle_pending(h);  // the other family's
  const GraphInfo& info = *h.info;
  h.pending = std::make_unique<DeferredAgreement>(alltoall, tuner.payload());
  h.pending->start(channel_comm(state), info.rank, info.size, state.own->shared ? &info.process_of : nullptr,
                   state.own->ack_tag);
}

TrialTicket take_trial_ticket(CommState& state, algos::Tuner& tuner, bool alltoall, bool nonblocking) {
  if (!nonblocking) return TrialTicket{{}, nullptr, tuning_clock_ns()};
  return TrialTicket{tuner.take_trial(), state.tuning->inbox[alltoall ? 1 : 0], tuning_clock_ns()};
}

void trial_done(TrialTicket& ticket) {
  if (!ticket.inbox) return;
  const std::uint64_t ns = tuning_clock_ns() - ticket.started_ns;
  {
    const std::lock_guard<std::mutex> lock(ticket.inbox->lock);
    ticket.inbox->done.emplace_back(std::move(ticket.trial), ns);
    ticket.inbox->filled.store(true, std::memory_order_release);
  }
  ticket.inbox.reset();
}

std::uint64_t tuning_clock_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

const algos::Tuner* existing_tuner(const CommState& state, bool alltoall, bool nonblocking) {
  if (!state.tuning || state.tuning->info != state.info) return nullptr;
  const std::optional<algos::Tuner>& t = slot(*state.tuning, alltoall, nonblocking);
  return t ? &*t : nullptr;
}

namespace {

// Whether some tuner the handle has made and not closed satisfies `open`.
template <class Pred>
bool any_open_tuner(const CommState& state, Pred open) {
  for (const bool nonblocking : {false, true}) {
    for (const bool alltoall : {false, true}) {
      const algos::Tuner* t = existing_tuner(state, alltoall, nonblocking);
      if (t != nullptr && t->phase() != algos::Tuner::Phase::kClosed && open(*t)) return true;
    }
  }
  return false;
}

}  // namespace

bool tuning_busy(const CommState& state) {
  if (state.info->plan_at_call != 0 && state.planning_calls < state.info->plan_at_call) return true;
  return any_open_tuner(state, [](const algos::Tuner& t) {
    return t.phase() == algos::Tuner::Phase::kTrying || t.unsettled_seen() || t.mixed_seen();
  });
}

bool tuning_closed(const CommState& state) {
  return !any_open_tuner(state, [](const algos::Tuner&) { return true; });
}

}  // namespace nbrcoll
