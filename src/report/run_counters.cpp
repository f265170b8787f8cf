#include "report/run_counters.h"

#include <algorithm>
#include <mutex>

#include "support/config.h"
#include "support/mpi_identity.h"
#include "support/ticks.h"

namespace nbrcoll::report {

namespace {

TickRate g_rate;
std::mutex g_mutex;

template <class Add>
void add(Add&& body) {
  if (!detail::g_lock) {
    body(detail::g_counters);
    return;
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  body(detail::g_counters);
}

}  // namespace

void start() {
  detail::g_on = config().report != ReportTo::kOff;
  if (!detail::g_on) return;
  detail::g_lock = mpi_threads_concurrent();
  g_rate.start();
}

void LinkBytes::assign(const std::uint64_t (&all_sent)[kLinkClasses], const std::uint64_t (&all_linear)[kLinkClasses]) {
  used = 0;
  for (unsigned k = 0; k < kLinkClasses; ++k) {
    if (all_sent[k] == 0 && all_linear[k] == 0) continue;
    link[used] = k;
    sent[used] = all_sent[k];
    linear[used] = all_linear[k];
    ++used;
  }
}

namespace detail {

void add_bytes_locked(const LinkBytes& b) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  add_to(g_counters, b);
}

unsigned time_weight_locked() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return next_weight(g_timed_calls, g_draw);
}

void add_call_locked(const CallTally& t, const LinkBytes* bytes) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  count_call(g_counters, t, bytes);
}

}  // namespace detail

void add_handoff(unsigned reason) {
  add([&](RunCounters& c) { ++c.handoffs[std::min(reason, kHandoffSlots - 1)]; });
}

void add_graph_setup(std::uint64_t ns) {
  add([&](RunCounters& c) {
    ++c.graphs;
    c.setup_ns += ns;
    c.setup_max_ns = std::max(c.setup_max_ns, ns);
  });
}

void add_late_plan(std::uint64_t ns) {
  add([&](RunCounters& c) {
    ++c.late_plans;
    c.late_ns += ns;
  });
}

RunCounters snapshot() {
  RunCounters copy;
  add([&](RunCounters& c) {
    copy = c;
    copy.call_ns = g_rate.ns(detail::g_call_ticks);
  });
  return copy;
}

}  // namespace nbrcoll::report
