// Interleaved timing of several algorithms, graph-creation timing and the
// collection of validation failures.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/report.h"
#include "bench/core/stats.h"

namespace nbrbench {

// The first validation failure of this rank.
struct Checker {
  bool failed = false;
  std::string first;
  void fail(const std::string& what) {
    if (!failed) first = what;
    failed = true;
  }
};

// One timed call: prepare (untimed), barrier, run (timed), check (untimed).
struct CallSteps {
  std::function<void(std::size_t algo, std::uint64_t call)> prepare;
  std::function<void(std::size_t algo)> run;
  std::function<void(std::size_t algo, std::uint64_t call)> check;
};

// One algorithm's timing: median/min/max in microseconds and, when the run
// has a "native" algorithm, the median over rounds of native's time / this
// time in the same round (median_ratio).
struct Timed {
  Summary us;
  std::optional<double> paired;
};

// For `warmup` untimed and then `iters` timed rounds, each algorithm once a
// round in round_order's order (nbrcoll's override set before each call). Per round the time is the max
// over ranks (reduced after the loop); returns each algorithm's Timed, the
// same on every rank. `call` numbers calls (identically on all ranks) and is
// advanced.
std::vector<Timed> time_interleaved(const std::vector<std::string>& algos, int warmup, int iters, std::uint64_t& call,
                                    const CallSteps& steps);

// At most this many untimed calls for auto's tuning to settle, settle()'s
// usual `limit`: a handle's first size takes about 20-60 calls
// (src/call/tuning.h), a later one the rest of the watching gap (up to
// 18 x 2^7 calls after the last agreement, fewer while sizes change) and
// a trying window or two, and a nonblocking call's agreement settles 12-20
// calls after it is due.
constexpr int kSettleLimit = 600;

// Calls of algorithm `a` on `comm` (steps as in time_interleaved, untimed),
// one and then more until nbrcoll says on every rank that they no longer
// change plan by themselves (tuning_busy: auto still timing a size, or a
// graph that plans late), at most `limit`; returns how many it made, the
// same on every rank. So that auto is timed at its steady state, as a
// program that repeats a call runs it.
int settle(std::size_t a, const std::string& algo, MPI_Comm comm, int limit, std::uint64_t& call,
           const CallSteps& steps);

// Graph creation through nbrcoll with each algorithm selected and straight
// through PMPI ("pmpi"), `reps` times each, every way once per repetition
// in an order shuffled per repetition (round_order); milliseconds, max over
// ranks, with the paired ratio to pmpi. Rounds: create and free; the
// same with lists never created before (rotated_lists, one rotation per
// creation: a graph nbrcoll plans afresh); create, `call` twice, free;
// create, `call` ten times, free (`call` null: the first two only).
struct GraphSpec {
  std::vector<int> in, out;
};
// `g` with its in-list rotated by n and its out-list by n / in-degree:
// the same neighbours, in another order, which the planners see as another
// graph (nbrcoll reuses the plans of a graph created before with equal
// lists: src/state/plan_set.h). Distinct for n below in- times out-degree.
GraphSpec rotated_lists(const GraphSpec& g, std::uint64_t n);
std::vector<CreateRow> time_creation(const std::vector<std::string>& algos, int reps, const GraphSpec& g,
                                     const std::function<void(MPI_Comm)>& call = nullptr);

// MPI_Dist_graph_create_adjacent over MPI_COMM_WORLD (no weights, no
// reorder); `pmpi` calls PMPI_ directly, bypassing nbrcoll.
MPI_Comm create_graph(const GraphSpec& g, bool pmpi = false);

// What this run is made on, for the CSV (same on every rank).
RunInfo describe_run(int iters, bool emulated_nodes);

// Rank 0, sweeps of more than one step: "nbrcoll-bench: 3/17 size 4K done
// (12.3 s)" on stderr after each step, so a long run shows it is alive.
void progress(int rank, std::size_t done, std::size_t total, const std::string& what);

// Every rank with a failure prints it to stderr; true when any rank failed.
bool report_failures(const Checker& c, int rank);

}  // namespace nbrbench
