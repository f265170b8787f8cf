// Whole-communicator simulation in one process: build every rank's plan from
// a global graph description, match every send with its receive, run the
// plans to a fixed point on simulated buffers and check the plan properties
// of docs/DESIGN.md section 4:
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

#include "algos/mixed_plan.h"
#include "algos/plan.h"
#include "algos/plan_stats.h"

namespace nbrcoll::algos {

// A communicator with a topology, as MPI would hold it: a distributed graph
// (or MPI_Graph_create's, whose lists are the same), or a Cartesian one.
struct CommGraph {
  std::vector<RankPlace> places;      // one per rank
  std::vector<NodeMatrices> nodes;    // one per node index (its topology)
  std::vector<std::vector<int>> in;   // in-list of each rank (kNoRank allowed)
  std::vector<std::vector<int>> out;  // out-list of each rank (kNoRank allowed)
  // kCartesian: in == out on every rank, (-1, +1) pairs per dimension.
  EdgePairing pairing = EdgePairing::kListOrder;
  int remote_leaders = 0;  // PlanInput::remote_leaders of every rank
  [[nodiscard]] int size() const { return static_cast<int>(places.size()); }
};

// Empty when the graph is one MPI accepts (sizes agree, ranks in range, and
// each out-list is, as a multiset, the ranks whose in-lists name it; a
// Cartesian one also mirrors its lists per dimension: rank d names s at
// slot i ^ 1 wherever s names d at j = i); else what is wrong.
std::string validate_graph(const CommGraph& graph);

// What rank `rank` would gather at MPI_Dist_graph_create_adjacent time.
// O(P + edges of its node).
PlanInput make_plan_input(const CommGraph& graph, int rank);
std::vector<PlanInput> make_plan_inputs(const CommGraph& graph);

using Planner = Plan (*)(const PlanInput&);
std::vector<Plan> build_plans(const CommGraph& graph, Planner planner);

struct SimResult {
  std::vector<std::string> errors;  // empty: properties (1) and (2) hold
  PlanStats stats;                  // summed over all ranks (bundles: header + payload bytes)
  std::uint64_t fragments = 0;      // matched send/recv pairs and bundles, empty ones too
  std::uint64_t rounds = 0;         // longest chain of dependent messages
  // Per origin rank: payload bytes of its block(s) that cross a node
  // boundary, and that leave its own GCD (sent from a rank on that GCD to a
  // rank elsewhere). Bundle headers are not payload: see header_bytes.
  std::vector<std::uint64_t> network_bytes;
  std::vector<std::uint64_t> off_device_bytes;
  // Messages that cross a node boundary, per ordered node pair
  // (from * nodes + to); a bundle counts the messages it takes (1 or 2).
  std::vector<std::uint64_t> network_messages;
  std::uint64_t header_bytes = 0;  // bundle headers, all links
  [[nodiscard]] bool ok() const { return errors.empty(); }
};

// block_bytes[r] = B(r), the size of rank r's block (allgatherv: any).
SimResult simulate(const CommGraph& graph, const std::vector<Plan>& plans,
                   const std::vector<std::uint64_t>& block_bytes);

// Neighbor alltoall(v): edge_bytes[s][j] = bytes of the block rank s sends
// on its out-edge j (one entry per out-list entry, kNoRank entries too).
// Slot i of rank d must get the block of the out-edge that MPI pairs with
// it: on a graph the k-th occurrence of s in d's in-list with the k-th
// occurrence of d in s's out-list; on a Cartesian communicator slot i with
// out-edge i ^ 1 of s (the standard's rule, written here from the lists
// alone, not by receiver_occurrences()).
SimResult simulate_alltoall(const CommGraph& graph, const std::vector<Plan>& plans,
                            const std::vector<std::vector<std::uint64_t>>& edge_bytes);

// One call of mixed plans (mixed_plan.h): per rank its mixed plan and the
// variant each of its units chose. The call runs, on every rank, the plan
// select() makes of them: the fragments of the chosen variants and every
// bundle whole, its pieces of other variants absent.
SimResult simulate_mixed(const CommGraph& graph, const std::vector<MixedPlan>& mixed,
                         const std::vector<std::vector<Variant>>& choices,
                         const std::vector<std::uint64_t>& block_bytes);
SimResult simulate_mixed_alltoall(const CommGraph& graph, const std::vector<MixedPlan>& mixed,
                                  const std::vector<std::vector<Variant>>& choices,
                                  const std::vector<std::vector<std::uint64_t>>& edge_bytes);

// Property (3): what `candidate` moves against what `linear` moves, per
// origin and in total (payload bytes across nodes and off the origin's GCD),
// and network messages per node pair. Empty when never more.
std::vector<std::string> compare_with_linear(const SimResult& candidate, const SimResult& linear);

}  // namespace nbrcoll::algos
