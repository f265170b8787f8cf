// Whole-communicator simulation in one process: build every rank's plan from
// a global graph description, match every send with its receive, run the
// plans to a fixed point on simulated buffers and check the plan properties
// of DESIGN-NOTES section 4:
//   (1) every (receiver, slot) gets exactly its source's bytes; nothing else in
//       any receive buffer is written (kNoRank slots, guards between slots);
//   (2) sends and receives match one to one and the plans cannot deadlock
//       (all receives pre-posted, a send fires once its after_recv arrived);
//   (3) via compare_with_linear(): bytes crossing node boundaries and bytes
//       of a source's block leaving the source's GCD never exceed linear's.
// Used by the unit tests and the benchmarks; no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plan.h"
#include "plan_stats.h"

namespace nbrcoll::algos {

// A communicator with a distributed graph topology, as MPI would hold it.
struct CommGraph {
  std::vector<RankPlace> places;      // one per rank
  std::vector<NodeMatrices> nodes;    // one per node index (its topology)
  std::vector<std::vector<int>> in;   // in-list of each rank (kNoRank allowed)
  std::vector<std::vector<int>> out;  // out-list of each rank (kNoRank allowed)
  [[nodiscard]] int size() const { return static_cast<int>(places.size()); }
};

// Empty when the graph is one MPI accepts (sizes agree, ranks in range, and
// each out-list is, as a multiset, the ranks whose in-lists name it); else
// what is wrong.
std::string validate_graph(const CommGraph& graph);

// What rank `rank` would gather at MPI_Dist_graph_create_adjacent time.
// O(P + edges of its node).
PlanInput make_plan_input(const CommGraph& graph, int rank);
std::vector<PlanInput> make_plan_inputs(const CommGraph& graph);

using Planner = Plan (*)(const PlanInput&);
std::vector<Plan> build_plans(const CommGraph& graph, Planner planner);

struct SimResult {
  std::vector<std::string> errors;  // empty: properties (1) and (2) hold
  PlanStats stats;                  // summed over all ranks
  std::uint64_t fragments = 0;      // matched send/recv pairs, empty ones too
  std::uint64_t rounds = 0;         // longest chain of dependent fragments
  // Per origin rank: bytes of its block that cross a node boundary, and bytes
  // of its block that leave its own GCD (sent from a rank on that GCD to a
  // rank elsewhere).
  std::vector<std::uint64_t> network_bytes;
  std::vector<std::uint64_t> off_device_bytes;
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

// block_bytes[r] = B(r), the size of rank r's block (allgatherv: any).
SimResult simulate(const CommGraph& graph, const std::vector<Plan>& plans,
                   const std::vector<std::uint64_t>& block_bytes);

// Property (3): what `candidate` moves against what `linear` moves, per
// origin and in total. Empty when never more.
std::vector<std::string> compare_with_linear(const SimResult& candidate, const SimResult& linear);

}  // namespace nbrcoll::algos
