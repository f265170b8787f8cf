#include "support/watchdog.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "state/comm_state.h"
#include "support/config.h"

namespace nbrcoll {

namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  std::string what;  // the call and its peers, formatted once when it starts
  int rank = 0;
  Clock::time_point start;
  int reported = 0;  // how many limits have passed and been reported
};

struct Registry {
  std::mutex mutex;
  std::map<long, Running> running;
  long next_id = 0;
  bool thread_started = false;
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: the watchdog thread may outlive main's statics
  return *r;
}

std::string rank_list(const std::vector<int>& ranks, int me) {
  std::vector<int> sorted;
  for (const int r : ranks) {
    if (r >= 0 && r != me) sorted.push_back(r);
  }
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (sorted.empty()) return "none";
  std::string out;
  constexpr std::size_t kShown = 16;
  for (std::size_t i = 0; i < sorted.size() && i < kShown; ++i) out += (i > 0 ? "," : "") + std::to_string(sorted[i]);
  if (sorted.size() > kShown) out += " and " + std::to_string(sorted.size() - kShown) + " more";
  return out;
}

void watch(double limit) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(1.0, limit / 4)));
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    const Clock::time_point now = Clock::now();
    for (auto& [id, call] : r.running) {
      const double seconds = std::chrono::duration<double>(now - call.start).count();
      const int periods = static_cast<int>(seconds / limit);
      if (periods <= call.reported) continue;
      call.reported = periods;
      std::fprintf(stderr, "[nbrcoll %d] watchdog: %s has run for %.1f s\n", call.rank, call.what.c_str(), seconds);
    }
  }
}

}  // namespace

WatchedCall::WatchedCall(const char* op, std::uint64_t call_number, const GraphInfo& info) {
  const double limit = config().watchdog;
  if (limit <= 0) return;
  Running call;
  call.rank = info.process_of[static_cast<std::size_t>(info.rank)];
  call.start = Clock::now();
  call.what = std::string(op) + " #" + std::to_string(call_number) + " on a graph communicator of " +
              std::to_string(info.size) + " ranks (rank " + std::to_string(info.rank) + " there; receives from " +
              rank_list(info.in, info.rank) + "; sends to " + rank_list(info.out, info.rank) +
              "; ranks of the graph communicator)";
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  id_ = r.next_id++;
  r.running.emplace(id_, std::move(call));
  if (!r.thread_started) {
    r.thread_started = true;
    std::thread(watch, limit).detach();
  }
}

WatchedCall::~WatchedCall() {
  if (id_ < 0) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.running.erase(id_);
}

}  // namespace nbrcoll
