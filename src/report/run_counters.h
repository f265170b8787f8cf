// The run report's counters (NBRCOLL_REPORT, README.md): one set per
// process, added to while the report is on and gathered to world rank 0 at
// MPI_Finalize (run_report.h). Off, the only cost a call pays is the test
// of on(): one load of a flag set at MPI_Init, then one predictable branch.
// No MPI here; indices are plain numbers so that this folder depends on no
// call type (call/tally.cpp maps kinds, modes, plans and hand-off reasons).
#pragma once

#include <cstdint>
#include <type_traits>

#include "algos/plan.h"
#include "report/held_handles.h"

namespace nbrcoll::report {

inline constexpr unsigned kKinds = 5;  // allgather, allgatherv, alltoall, alltoallv, alltoallw (call/user_call.h)
inline constexpr unsigned kModes = 3;  // blocking, nonblocking, persistent
inline constexpr unsigned kPlans = 4;  // linear, leader, aggregated (algos::Variant), then mixed
inline constexpr unsigned kMixedPlan = 3;
inline constexpr unsigned kHandoffSlots = 16;  // call/decision.h's Handoff, kNone included
// The planner's link classes (algos::LinkClass: same device ... network).
inline constexpr unsigned kLinkClasses = algos::kLinkClassCount;

// Everything one rank counts: only 64-bit words, so that MPI_Finalize
// gathers the struct as one array of MPI_UINT64_T.
struct RunCounters {
  std::uint64_t calls[kKinds][kModes] = {};  // calls nbrcoll ran (a persistent call: each start)
  std::uint64_t plans[kPlans] = {};
  std::uint64_t handoffs[kHandoffSlots] = {};     // calls handed to the MPI, by reason
  std::uint64_t bytes[kLinkClasses] = {};         // sent by nbrcoll's plans (bundle headers included)
  std::uint64_t linear_bytes[kLinkClasses] = {};  // the linear plan's: one message per edge, as the MPI's own
  std::uint64_t call_ns = 0;                      // inside the calls nbrcoll ran (nonblocking, persistent: their start)
  std::uint64_t graphs = 0;                       // graphs set up at creation
  std::uint64_t setup_ns = 0;
  std::uint64_t setup_max_ns = 0;
  std::uint64_t late_plans = 0;  // graphs planned at a blocking call (state/late_plans.h)
  std::uint64_t late_ns = 0;
  std::uint64_t peak_rss_kib = 0;  // filled at MPI_Finalize (getrusage)
  // The MPI handles nbrcoll held when MPI_Finalize began (held_handles.h;
  // an int64 in each word), filled there.
  std::uint64_t held[kHandleKinds] = {};
};
static_assert(std::is_trivially_copyable_v<RunCounters> && sizeof(RunCounters) % sizeof(std::uint64_t) == 0);
inline constexpr int kCounterWords = static_cast<int>(sizeof(RunCounters) / sizeof(std::uint64_t));

// The report times a call by two reads of the time-stamp counter, 10-20 ns
// each: 1-2% of a 1 KiB call of about 2 us by themselves. So after a
// process's first kExactCalls calls, all timed, one call in kSampleEvery is
// timed, drawn at random (no period of the application's calls can alias
// with it) and counted kSampleEvery times: the sum of call times stays an
// unbiased estimate, exact in a run of few calls.
inline constexpr std::uint64_t kExactCalls = 256;
inline constexpr unsigned kSampleEvery = 8;

namespace detail {
// Set once by start() at MPI_Init, read by every call after it.
inline bool g_on = false;
// Under MPI_THREAD_MULTIPLE calls of several threads add at once: then the
// adds take a lock (run_counters.cpp); otherwise they are plain, inline in
// the call (one thread is inside the MPI), a few instructions each.
inline bool g_lock = false;
inline RunCounters g_counters;
// The calls' time in ticks, turned into call_ns by the snapshot.
inline std::uint64_t g_call_ticks = 0;
// The time sample (time_weight()): calls seen, and a generator's state.
inline std::uint64_t g_timed_calls = 0;
inline std::uint64_t g_draw = 0;
unsigned time_weight_locked();
// A call's weight: 1 while calls are few, then one step of a 64-bit linear
// congruential generator (Knuth's MMIX constants), whose top bits are the
// well-mixed ones.
inline unsigned next_weight(std::uint64_t& timed, std::uint64_t& draw) {
  if (timed < kExactCalls) {
    ++timed;
    return 1;
  }
  draw = draw * 6364136223846793005ULL + 1442695040888963407ULL;
  return (draw >> 61) == 0 ? kSampleEvery : 0;  // 3 top bits: 1 in 8
}
}  // namespace detail

// The weight of the call about to run in the report's time (0: not timed).
inline unsigned time_weight() {
  if (detail::g_lock) return detail::time_weight_locked();
  return detail::next_weight(detail::g_timed_calls, detail::g_draw);
}

// Whether the report is on: the one test a call makes when it is off.
inline bool on() {
  return detail::g_on;
}

// At MPI_Init (after the MPI's own): the report on or off, from
// NBRCOLL_REPORT, and whether adding needs a lock (MPI_THREAD_MULTIPLE).
void start();

// What one call nbrcoll ran adds. `plan` < kPlans.
struct CallTally {
  unsigned kind = 0;
  unsigned mode = 0;
  unsigned plan = 0;
  std::uint64_t ticks = 0;  // support/ticks.h, weighted (time_weight()): nanoseconds at the report
};
// The bytes a call's plan sent and one message per edge would have, per
// link class, listing only the classes the call used (most calls use one
// or two: an add costs as many).
struct LinkBytes {
  unsigned used = 0;  // entries below
  unsigned link[kLinkClasses] = {};
  std::uint64_t sent[kLinkClasses] = {};
  std::uint64_t linear[kLinkClasses] = {};
  // Entries from full per-class arrays, leaving out classes with no bytes.
  void assign(const std::uint64_t (&all_sent)[kLinkClasses], const std::uint64_t (&all_linear)[kLinkClasses]);
};
namespace detail {
inline void add_to(RunCounters& c, const LinkBytes& b) {
  for (unsigned i = 0; i < b.used; ++i) {
    c.bytes[b.link[i]] += b.sent[i];
    c.linear_bytes[b.link[i]] += b.linear[i];
  }
}
inline void count_call(RunCounters& c, const CallTally& t, const LinkBytes* bytes) {
  ++c.calls[t.kind][t.mode];
  ++c.plans[t.plan];
  g_call_ticks += t.ticks;
  if (bytes != nullptr) add_to(c, *bytes);
}
void add_call_locked(const CallTally& t, const LinkBytes* bytes);
void add_bytes_locked(const LinkBytes& b);
}  // namespace detail

// Added when the call's messages are done.
inline void add_bytes(const LinkBytes& b) {
  if (detail::g_lock) return detail::add_bytes_locked(b);
  detail::add_to(detail::g_counters, b);
}
// A call, and where its messages are done (a blocking call) its bytes: one
// add for both.
inline void add_call(const CallTally& t, const LinkBytes* bytes = nullptr) {
  if (detail::g_lock) return detail::add_call_locked(t, bytes);
  detail::count_call(detail::g_counters, t, bytes);
}
void add_handoff(unsigned reason);
void add_graph_setup(std::uint64_t ns);
void add_late_plan(std::uint64_t ns);

// A copy of this process's counters (MPI_Finalize; tests).
RunCounters snapshot();

}  // namespace nbrcoll::report
