#include "support/plan_summary.h"

#include <cstdio>
#include <string>

#include "algos/plan_stats.h"
#include "state/cost_tables.h"
#include "state/schedules.h"
#include "support/log.h"

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
  if (info.linear_only && info.plan_at_call != 0)
    return head + linear + " (linear plans until blocking call " + std::to_string(info.plan_at_call) + ")";
  if (info.linear_only) return head + linear + " (linear plans only: its calls never choose another)";
  return head + std::string("leader [") + algos::format_stats(algos::compute_stats(info.plans->leader, kBlock)) + "] " +
         linear;
}

void log_plans(const GraphInfo& info) {
  if (!log_enabled(LogLevel::kInfo)) return;
  log(LogLevel::kInfo, "%s", summarize_plans(info).c_str());
  if (info.rank == 0 && !info.linear_only) {
    log(LogLevel::kInfo, "auto on this graph (machine %s): allgather %s; alltoall %s", machine_model().name.c_str(),
        info.gather_costs.describe().c_str(), info.alltoall_costs.describe().c_str());
  }
}

}  // namespace nbrcoll
