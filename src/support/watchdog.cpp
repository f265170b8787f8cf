#include "support/watchdog.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "state/comm_state.h"
#include "support/config.h"

namespace nbrcoll {

namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  std::string what;  // the call and its peers, formatted once when it starts
  std::string waits;  // whom it waits for in the MPI (watchdog_waits_for), empty before its first wait
  const std::vector<int>* process_of = nullptr;  // graph rank -> world rank (the graph outlives its call)
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

thread_local long t_watched = -1;  // the registry id of this thread's running call

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
      std::fprintf(stderr, "[nbrcoll %d] watchdog: %s has run for %.1f s%s\n", call.rank, call.what.c_str(), seconds,
                   call.waits.c_str());
    }
  }
}

}  // namespace

bool watchdog_on() {
  static const bool on = config().watchdog > 0;
  return on;
}

WatchedCall::WatchedCall(const char* op, std::uint64_t call_number, const GraphInfo& info) {
  const double limit = config().watchdog;
  if (limit <= 0) return;
  Running call;
  call.rank = info.process_of[static_cast<std::size_t>(info.rank)];
  call.process_of = &info.process_of;
  call.start = Clock::now();
  call.what = std::string(op) + " #" + std::to_string(call_number) + " on a graph communicator of " +
              std::to_string(info.size) + " ranks (rank " + std::to_string(info.rank) + " there; receives from " +
              rank_list(info.in, info.rank) + "; sends to " + rank_list(info.out, info.rank) +
              "; ranks of the graph communicator)";
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  id_ = r.next_id++;
  r.running.emplace(id_, std::move(call));
  outer_ = t_watched;
  t_watched = id_;
  if (!r.thread_started) {
    r.thread_started = true;
    std::thread(watch, limit).detach();
  }
}

WatchedCall::~WatchedCall() {
  if (id_ < 0) return;
  t_watched = outer_;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.running.erase(id_);
}

void watchdog_waits_for(const std::vector<int>& from, const std::vector<int>& to) {
  if (t_watched < 0) return;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto it = r.running.find(t_watched);
  if (it == r.running.end()) return;
  Running& call = it->second;
  std::string waits;
  for (const auto& [ranks, side] : {std::pair{&from, "from "}, std::pair{&to, "to "}}) {
    std::vector<int> world;
    for (const int g : *ranks) {
      if (g >= 0 && static_cast<std::size_t>(g) < call.process_of->size())
        world.push_back((*call.process_of)[static_cast<std::size_t>(g)]);
    }
    if (world.empty()) continue;
    waits += (waits.empty() ? "" : " and ") + std::string(side) + rank_list(world, -1);
  }
  call.waits = waits.empty() ? "" : "; waits in the MPI for messages " + waits + " (world ranks)";
}

}  // namespace nbrcoll
