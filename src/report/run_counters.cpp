#include "report/run_counters.h"

#include <algorithm>
#include <mutex>

#include "support/config.h"
#include "support/mpi_identity.h"
#include "support/ticks.h"

namespace nbrcoll::report {

namespace {

RunCounters g_counters;
// The calls' time in ticks, turned into call_ns by the snapshot.
std::uint64_t g_call_ticks = 0;
TickRate g_rate;
// Under MPI_THREAD_MULTIPLE calls of several threads add at once: then a
// lock; otherwise the adds are plain (one thread is inside the MPI).
bool g_lock = false;
std::mutex g_mutex;

template <class Add>
void add(Add&& body) {
  if (!g_lock) {
    body(g_counters);
    return;
  }
  const std::lock_guard<std::mutex> lock(g_mutex);
  body(g_counters);
}

}  // namespace

void start() {
  detail::g_on = config().report != ReportTo::kOff;
  if (!detail::g_on) return;
  g_lock = mpi_threads_concurrent();
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

namespace {
void add_to(RunCounters& c, const LinkBytes& b) {
  for (unsigned i = 0; i < b.used; ++i) {
    c.bytes[b.link[i]] += b.sent[i];
    c.linear_bytes[b.link[i]] += b.linear[i];
  }
}
}  // namespace

void add_bytes(const LinkBytes& b) {
  add([&](RunCounters& c) { add_to(c, b); });
}

void add_call(const CallTally& t, const LinkBytes* bytes) {
  add([&](RunCounters& c) {
    ++c.calls[t.kind][t.mode];
    ++c.plans[t.plan];
    g_call_ticks += t.ticks;
    if (bytes != nullptr) add_to(c, *bytes);
  });
}

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
    copy.call_ns = g_rate.ns(g_call_ticks);
  });
  return copy;
}

}  // namespace nbrcoll::report
