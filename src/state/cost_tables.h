// The cost tables `auto` chooses from (algos/cost_model.h): each rank
// predicts its own time per variant at the model's block sizes when a graph
// is created, the one agreement of graph creation takes the maximum, and
// every rank ends with the same tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "algos/cost_model.h"
#include "state/comm_state.h"

namespace nbrcoll {

// The machine this process models (NBRCOLL_MACHINE: a built-in name or a
// machine file; else the built-in named like the node topology's model,
// else "generic"). Loaded once; a bad setting is warned about once, and so
// is a file that did not measure a link class this process's ranks use
// (those classes take the built-in's values: algos/machine_check.h).
const algos::MachineModel& machine_model();

// Terms this rank contributes to the agreement (ns, one per variant and
// model size: the allgather plan's variants, then the alltoall plan's),
// from its plans in `set` and what it knows of its node (`input`).
inline constexpr std::size_t kCostTerms = (3 + 2) * algos::kModelSizeCount;
void cost_terms(const PlanSet& set, const algos::PlanInput& input, std::vector<std::int64_t>& terms);

// The same terms where only the linear plans exist (a graph on one node of
// `ranks_on_node` ranks: nothing crosses a network): every row is linear's.
void linear_cost_terms(const GraphInfo& info, int ranks_on_node, std::vector<std::int64_t>& terms);

// The tables from the agreed (maximum) terms: the model, and what auto
// chooses from (CostTable::offered: the aggregated variant only where it
// wins clearly, so that calls do not send its bundles for nothing).
void set_cost_tables(GraphInfo& info, const std::int64_t* agreed);

// A linear-only graph (graph_setup.cpp) has no cost rows from creation: its
// calls never ask. Whatever reads a graph's cost tables or agreed terms
// (introspection: the benchmarks' predictions; tests) calls this first,
// which makes them once, this rank's own linear rows. Other graphs have
// theirs from creation and this does nothing.
void ensure_cost_tables(const GraphInfo& info);

}  // namespace nbrcoll
