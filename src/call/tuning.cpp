#include "call/tuning.h"

#include <chrono>
#include <string>
#include <vector>

#include "support/config.h"
#include "support/log.h"

namespace nbrcoll {

namespace {

std::string size_text(std::uint64_t b) {
  if (b >= (std::uint64_t{1} << 20) && b % (std::uint64_t{1} << 20) == 0) return std::to_string(b >> 20) + "M";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + "K";
  return std::to_string(b);
}

void log_settled(const algos::Tuner& t, int k, bool alltoall) {
  std::string times;
  const auto times_ns = t.last_times(k);
  for (int v = 0; v < algos::kVariantCount; ++v) {
    if (times_ns[static_cast<std::size_t>(v)] < 0) continue;
    times += std::string(times.empty() ? "" : ", ") + algos::variant_name(static_cast<algos::Variant>(v)) + " " +
             std::to_string(times_ns[static_cast<std::size_t>(v)] / 1000);
  }
  const int s = t.settled(k);
  log(LogLevel::kInfo, "auto measured %s blocks of %s-%s B at call %llu: %s (slowest rank's median us a call: %s)",
      alltoall ? "alltoall" : "allgather", size_text(algos::bucket_low(k)).c_str(),
      size_text(algos::bucket_high(k)).c_str(), static_cast<unsigned long long>(t.calls()),
      s >= 0 ? algos::variant_name(static_cast<algos::Variant>(s)) : "the model's choice (too few timings)",
      times.empty() ? "none" : times.c_str());
}

}  // namespace

algos::Tuner* tuner_for(CommState& state, bool alltoall) {
  const double factor = config().tune_factor;
  if (factor <= 0) return nullptr;
  if (!state.tuning || state.tuning->info != state.info) {
    state.tuning = std::make_shared<HandleTuning>();
    state.tuning->info = state.info;
  }
  HandleTuning& h = *state.tuning;
  std::optional<algos::Tuner>& t = alltoall ? h.alltoall : h.gather;
  if (!t) {
    const GraphInfo& info = *h.info;
    if (alltoall)
      t.emplace(info.alltoall_model, info.alltoall_costs, factor);
    else
      t.emplace(info.gather_model, info.gather_costs, factor);
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
  const std::vector<int> settled = tuner.settle(sum);
  if (info.rank == 0 && log_enabled(LogLevel::kInfo)) {
    for (const int k : settled) log_settled(tuner, k, alltoall);
  }
  if (log_enabled(LogLevel::kTrace))
    log(LogLevel::kTrace, "auto's timing agreement %llu at call %llu: %zu sizes settled, now %s",
        static_cast<unsigned long long>(tuner.epoch()), static_cast<unsigned long long>(tuner.calls()), settled.size(),
        tuner.phase() == algos::Tuner::Phase::kTrying     ? "trying"
        : tuner.phase() == algos::Tuner::Phase::kWatching ? "watching"
                                                          : "closed");
}

std::uint64_t tuning_clock_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

const algos::Tuner* existing_tuner(const CommState& state, bool alltoall) {
  if (!state.tuning || state.tuning->info != state.info) return nullptr;
  const std::optional<algos::Tuner>& t = alltoall ? state.tuning->alltoall : state.tuning->gather;
  return t ? &*t : nullptr;
}

bool tuning_busy(const CommState& state) {
  if (state.info->plan_at_call != 0 && state.planning_calls < state.info->plan_at_call) return true;
  for (const bool alltoall : {false, true}) {
    const algos::Tuner* t = existing_tuner(state, alltoall);
    if (t != nullptr && t->phase() != algos::Tuner::Phase::kClosed &&
        (t->phase() == algos::Tuner::Phase::kTrying || t->unsettled_seen() || t->mixed_seen()))
      return true;
  }
  return false;
}

}  // namespace nbrcoll
