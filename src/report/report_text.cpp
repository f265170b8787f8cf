#include "report/report_text.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "algos/plan.h"
#include "algos/variant.h"

namespace nbrcoll::report {

namespace {

constexpr const char* kKindNames[kKinds] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

// Appends one line, prefixed.
void line(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void line(std::string& out, const char* fmt, ...) {
  char body[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(body, sizeof body, fmt, ap);
  va_end(ap);
  out += "nbrcoll report: ";
  out += body;
  out += '\n';
}

struct Spread {
  double min = 0;
  double median = 0;
  double max = 0;
};

// Min, median (the mean of the middle two of an even count) and max.
Spread spread(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return {v.front(), n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v.back()};
}

template <class Field>
Spread spread_of(const std::vector<RunCounters>& ranks, Field field) {
  std::vector<double> v;
  v.reserve(ranks.size());
  for (const RunCounters& r : ranks) v.push_back(field(r));
  return spread(std::move(v));
}

unsigned long long ull(std::uint64_t v) {
  return static_cast<unsigned long long>(v);
}

double seconds(std::uint64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}

}  // namespace

std::string report_text(const std::vector<RunCounters>& ranks, const HandoffNames& handoffs) {
  // Counts and bytes over every rank.
  RunCounters sum;
  std::uint64_t longest_setup = 0;
  for (const RunCounters& r : ranks) {
    for (unsigned k = 0; k < kKinds; ++k)
      for (unsigned m = 0; m < kModes; ++m) sum.calls[k][m] += r.calls[k][m];
    for (unsigned p = 0; p < kPlans; ++p) sum.plans[p] += r.plans[p];
    for (unsigned h = 0; h < kHandoffSlots; ++h) sum.handoffs[h] += r.handoffs[h];
    for (unsigned c = 0; c < kLinkClasses; ++c) {
      sum.bytes[c] += r.bytes[c];
      sum.linear_bytes[c] += r.linear_bytes[c];
    }
    sum.graphs += r.graphs;
    sum.setup_ns += r.setup_ns;
    longest_setup = std::max(longest_setup, r.setup_max_ns);
    sum.late_plans += r.late_plans;
    sum.late_ns += r.late_ns;
  }

  std::string out;
  line(out, "%zu ranks; counts and bytes are summed over ranks", ranks.size());
  line(out, "%-24s %12s %12s %12s", "calls run by nbrcoll", "blocking", "nonblocking", "persistent");
  for (unsigned k = 0; k < kKinds; ++k) {
    line(out, "  %-22s %12llu %12llu %12llu", kKindNames[k], ull(sum.calls[k][0]), ull(sum.calls[k][1]),
         ull(sum.calls[k][2]));
  }
  std::string plans;
  for (unsigned p = 0; p < kPlans; ++p) {
    const char* name = p == kMixedPlan ? "mixed" : algos::variant_name(static_cast<algos::Variant>(p));
    plans += (p == 0 ? "" : ", ") + std::string(name) + " " + std::to_string(sum.plans[p]);
  }
  line(out, "calls by plan: %s", plans.c_str());

  std::uint64_t handed = 0;
  for (const std::uint64_t h : sum.handoffs) handed += h;
  line(out, "calls handed to the MPI: %llu", ull(handed));
  for (unsigned h = 0; h < kHandoffSlots; ++h) {
    if (sum.handoffs[h] == 0) continue;
    if (h < handoffs.count) {
      line(out, "  %12llu  %s", ull(sum.handoffs[h]), handoffs.names[h]);
    } else {
      line(out, "  %12llu  reason %u", ull(sum.handoffs[h]), h);
    }
  }

  line(out, "%-30s %16s  %20s", "bytes sent by link class", "nbrcoll's plans", "one message per edge");
  std::uint64_t node[2] = {};  // inside the node: every class but the network
  for (unsigned c = 0; c < kLinkClasses; ++c) {
    line(out, "  %-28s %16llu  %20llu", algos::link_class_name(static_cast<algos::LinkClass>(c)), ull(sum.bytes[c]),
         ull(sum.linear_bytes[c]));
    if (c != static_cast<unsigned>(algos::LinkClass::kNetwork)) {
      node[0] += sum.bytes[c];
      node[1] += sum.linear_bytes[c];
    }
  }
  line(out, "  %-28s %16llu  %20llu", "same node (all but network)", ull(node[0]), ull(node[1]));

  const Spread time = spread_of(ranks, [](const RunCounters& r) { return seconds(r.call_ns); });
  line(out, "time in nbrcoll's calls per rank: min %.6f s, median %.6f s, max %.6f s", time.min, time.median, time.max);
  const Spread graphs = spread_of(ranks, [](const RunCounters& r) { return static_cast<double>(r.graphs); });
  line(out, "graphs set up: %llu (per rank min %.0f, max %.0f), set-up time %.6f s in all, longest %.6f s",
       ull(sum.graphs), graphs.min, graphs.max, seconds(sum.setup_ns), seconds(longest_setup));
  line(out, "graphs planned at a call: %llu, %.6f s in all", ull(sum.late_plans), seconds(sum.late_ns));
  const Spread rss = spread_of(ranks, [](const RunCounters& r) { return static_cast<double>(r.peak_rss_kib) / 1024; });
  line(out,
       "peak RSS per rank (getrusage: the whole process; nbrcoll does not count its own allocations): min %.1f MiB, "
       "median %.1f MiB, max %.1f MiB",
       rss.min, rss.median, rss.max);
  // Signed: a count below zero (a free counted twice) must show as one.
  std::string kinds;
  for (unsigned k = 0; k < kHandleKinds; ++k) {
    long long sum_held = 0;
    for (const RunCounters& r : ranks) sum_held += static_cast<long long>(static_cast<std::int64_t>(r.held[k]));
    kinds += (k == 0 ? "" : ", ") + std::string(kHandleNames[k]) + " " + std::to_string(sum_held);
  }
  line(out,
       "MPI handles still held at finalize (made by nbrcoll and not freed, summed over ranks; its own communicator "
       "and attribute keys go inside MPI_Finalize): %s",
       kinds.c_str());
  return out;
}

}  // namespace nbrcoll::report
