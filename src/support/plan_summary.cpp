#include "support/plan_summary.h"

#include <cstdio>

#include "algos/plan_stats.h"
#include "state/schedules.h"

namespace nbrcoll {

std::string summarize_plans(const GraphInfo& info) {
  // Shares scale with the block, so the bytes for a 1 MiB block read as per-MiB traffic.
  constexpr std::uint64_t kBlock = 1 << 20;
  ensure_linear_plans(info);
  char head[192];
  std::snprintf(head, sizeof head,
                "graph: in %zu out %zu nodes %d topo %s; this rank sends per 1 MiB block: ", info.in.size(),
                info.out.size(), info.nodes, info.topo_source.c_str());
  const std::string linear = "linear [" + algos::format_stats(algos::compute_stats(info.plans->linear, kBlock)) + "]";
  if (info.linear_only) return head + linear + " (linear plans only: its calls never choose another)";
  return head + std::string("leader [") + algos::format_stats(algos::compute_stats(info.plans->leader, kBlock)) + "] " +
         linear;
}

}  // namespace nbrcoll
