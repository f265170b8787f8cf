#include "state/lifetimes.h"

#include <algorithm>
#include <mutex>

#include "support/config.h"

namespace nbrcoll {

void LifetimeHistory::add(std::shared_ptr<const CallCounter> calls) {
  graphs_[static_cast<std::size_t>(added_ % kKept)] = std::move(calls);
  ++added_;
}

bool LifetimeHistory::looks_short(int short_calls) const {
  if (short_calls <= 0 || added_ < kNeeded) return false;
  const int n = std::min(added_, kKept);
  std::array<std::uint64_t, kKept> counts{};
  for (int i = 0; i < n; ++i) counts[static_cast<std::size_t>(i)] = graphs_[static_cast<std::size_t>(i)]->load();
  std::sort(counts.begin(), counts.begin() + n);
  return counts[static_cast<std::size_t>(n / 2)] <= static_cast<std::uint64_t>(short_calls);
}

namespace {

struct Lifetimes {
  std::mutex mutex;
  LifetimeHistory history;
};

Lifetimes& lifetimes() {
  static Lifetimes l;
  return l;
}

}  // namespace

void remember_graph(std::shared_ptr<const CallCounter> calls) {
  Lifetimes& l = lifetimes();
  const std::lock_guard<std::mutex> lock(l.mutex);
  l.history.add(std::move(calls));
}

bool votes_short_lived() {
  Lifetimes& l = lifetimes();
  const std::lock_guard<std::mutex> lock(l.mutex);
  return l.history.looks_short(config().short_graph_calls);
}

}  // namespace nbrcoll
