// One rank's plans of a graph, their runnable schedules and its cost rows:
// all a function of the planners' input (algos::PlanInput), so graphs with
// the same input share one PlanSet. Applications create the same
// neighbourhood again and again (DOLFINx makes a communicator per index
// map, and the maps of one mesh mostly name the same neighbours; a solver
// rebuilds its scatters): plan_set_for finds a recent graph's set instead of
// planning again. Graph creation still exchanges the node lists and makes
// its agreement either way: only the local work is saved.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "algos/plan.h"
#include "algos/schedule.h"

namespace nbrcoll {

struct PlanSet {
  // What it was planned from (a kept set is found by it), and what its
  // lazily built schedules are built from.
  algos::PlanInput input;
  algos::Plan linear;  // each planner's plan, for statistics and introspection
  algos::Plan leader;
  algos::Plan aggregated;
  algos::Plan alltoall_linear;
  algos::Plan alltoall_aggregated;
  algos::Schedule gather;    // allgather(v): the three, mixed: each call picks a variant per origin
  algos::Schedule alltoall;  // neighbor alltoall(v): linear and aggregated, mixed per edge
  // Each family's schedule, where it waits, is built when first needed
  // (schedules.h), once for every graph that shares the set.
  std::once_flag gather_built;
  std::once_flag alltoall_built;
  // Set once its call_once has run: a call reads one flag instead of
  // entering std::call_once (thread-local set-up and a lock) every time.
  std::atomic<bool> gather_ready{false};
  std::atomic<bool> alltoall_ready{false};
  // This rank's cost rows (cost_tables.h, cost_terms), before the agreement
  // takes their maxima over ranks: a graph with every planner only.
  std::vector<std::int64_t> cost_terms;
};

// How many plan sets the process keeps after their graphs are freed: the
// most recently made or reused ones.
inline constexpr std::size_t kKeptPlanSets = 8;

// What a set holds, by the kind of graph set-up (graph_setup.cpp); sets of
// different kinds are never shared.
enum class PlanSetKind : std::uint8_t {
  // A graph with every planner: every planner's plans and this rank's cost
  // terms, made now; the schedules wait for their first call.
  kEveryPlanner,
  // A linear-only graph with the agreement: both linear plans and their
  // schedules, made now (their tags give the stride).
  kLinear,
  // A linear-only graph without the agreement: linear plans with tags all
  // 0 and their schedules, made by the first call of each family
  // (schedules.h); a graph sharing the set finds what earlier graphs built.
  kLinearUntagged,
};

// The plan set of a graph of `kind` whose complete input (for a graph with
// every planner, node lists included) is `input`: a kept set of that kind
// made from an equal input, or a new one, which takes `input` over and is
// then kept. `reused` says which. Thread-safe; what planning throws passes
// through and nothing is kept.
std::shared_ptr<PlanSet> plan_set_for(algos::PlanInput&& input, PlanSetKind kind, bool& reused);

}  // namespace nbrcoll
