#include "bench/harness.h"

#include <algorithm>
#include <cstdio>

#include "bench/core/round_order.h"
#include "bench/nbrcoll_hooks.h"
#include "nbrcoll/nbrcoll.h"

namespace nbrbench {

std::vector<Timed> time_interleaved(const std::vector<std::string>& algos, int warmup, int iters, std::uint64_t& call,
                                    const CallSteps& steps) {
  const std::size_t na = algos.size();
  std::vector<std::vector<double>> t(na, std::vector<double>(static_cast<std::size_t>(iters)));
  std::vector<std::size_t> order(na);
  for (int it = -warmup; it < iters; ++it) {
    round_order(static_cast<std::uint64_t>(it + warmup), order);
    for (const std::size_t a : order) {
      select_algo(algos[a]);
      if (steps.prepare) steps.prepare(a, call);
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      steps.run(a);
      const double t1 = MPI_Wtime();
      // Validation never overlaps another rank's timed call: that would slow
      // the ranks still inside it (fast algorithms paid for it, slow ones hid it).
      if (steps.check) {
        MPI_Barrier(MPI_COMM_WORLD);
        steps.check(a, call);
      }
      ++call;
      if (it >= 0) t[a][static_cast<std::size_t>(it)] = t1 - t0;
    }
  }
  for (auto& v : t) {
    MPI_Allreduce(MPI_IN_PLACE, v.data(), iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (double& x : v) x *= 1e6;
  }
  const auto native = std::find(algos.begin(), algos.end(), "native");
  std::vector<Timed> out;
  for (std::size_t a = 0; a < na; ++a) {
    out.push_back({summarize(t[a]), native == algos.end()
                                        ? std::nullopt
                                        : median_ratio(t[static_cast<std::size_t>(native - algos.begin())], t[a])});
  }
  return out;
}

int settle(std::size_t a, const std::string& algo, MPI_Comm comm, int limit, std::uint64_t& call,
           const CallSteps& steps) {
  select_algo(algo);
  // One call first: nbrcoll learns of a size only from a call that has it.
  int made = 0;
  for (int busy = 1; busy != 0 && made < limit; ++made) {
    // As a timed call runs (time_interleaved): after a barrier, so that
    // auto times its trials under the conditions the table reports.
    if (steps.prepare) steps.prepare(a, call);
    MPI_Barrier(MPI_COMM_WORLD);
    steps.run(a);
    if (steps.check) {
      MPI_Barrier(MPI_COMM_WORLD);
      steps.check(a, call);
    }
    ++call;
    busy = tuning_busy(comm) ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &busy, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  }
  return made;
}

MPI_Comm create_graph(const GraphSpec& g, bool pmpi) {
  MPI_Comm c = MPI_COMM_NULL;
  const int indeg = static_cast<int>(g.in.size()), outdeg = static_cast<int>(g.out.size());
  if (pmpi)
    PMPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, g.in.data(), MPI_UNWEIGHTED, outdeg, g.out.data(),
                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  else
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, g.in.data(), MPI_UNWEIGHTED, outdeg, g.out.data(),
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  return c;
}

GraphSpec rotated_lists(const GraphSpec& g, std::uint64_t n) {
  GraphSpec r = g;
  if (!r.in.empty()) std::rotate(r.in.begin(), r.in.begin() + static_cast<std::ptrdiff_t>(n % r.in.size()), r.in.end());
  if (!r.out.empty()) {
    const std::uint64_t k = n / std::max<std::size_t>(1, r.in.size()) % r.out.size();
    std::rotate(r.out.begin(), r.out.begin() + static_cast<std::ptrdiff_t>(k), r.out.end());
  }
  return r;
}

std::vector<CreateRow> time_creation(const std::vector<std::string>& algos, int reps, const GraphSpec& g,
                                     const std::function<void(MPI_Comm)>& call) {
  std::vector<std::string> ways{"pmpi"};
  ways.insert(ways.end(), algos.begin(), algos.end());
  struct Round {
    const char* name;
    int calls;
    bool fresh;  // every creation's lists new (rotated_lists): nothing planned before
  };
  std::vector<Round> rounds{{"create+free", 0, false}, {"create+free, new lists", 0, true}};
  if (call) rounds.insert(rounds.end(), {{"create+2 calls+free", 2, false}, {"create+10 calls+free", 10, false}});
  std::uint64_t creations = 0;
  const std::size_t nw = ways.size();
  // ms[round][way][rep]
  std::vector<std::vector<std::vector<double>>> ms(
      rounds.size(), std::vector<std::vector<double>>(nw, std::vector<double>(static_cast<std::size_t>(reps))));
  std::vector<std::size_t> order(nw);
  for (int r = 0; r < reps; ++r) {
    for (std::size_t k = 0; k < rounds.size(); ++k) {
      round_order(static_cast<std::uint64_t>(r) * rounds.size() + k, order);
      for (const std::size_t w : order) {
        const bool pmpi = ways[w] == "pmpi";
        select_algo(pmpi ? "native" : ways[w]);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        MPI_Comm c = create_graph(rounds[k].fresh ? rotated_lists(g, creations++) : g, pmpi);
        for (int i = 0; i < rounds[k].calls; ++i) call(c);
        MPI_Comm_free(&c);
        ms[k][w][static_cast<std::size_t>(r)] = (MPI_Wtime() - t0) * 1e3;
      }
    }
  }
  std::vector<CreateRow> rows;
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    for (auto& v : ms[k]) MPI_Allreduce(MPI_IN_PLACE, v.data(), reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (std::size_t w = 0; w < nw; ++w) {
      const bool pmpi = ways[w] == "pmpi";
      rows.push_back({rounds[k].name, pmpi ? "pmpi (direct)" : ways[w] + " (nbrcoll)", summarize(ms[k][w]),
                      pmpi ? std::nullopt : median_ratio(ms[k][0], ms[k][w])});
    }
  }
  return rows;
}

RunInfo describe_run(int iters, bool emulated_nodes) {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  auto [mpi, version] = mpi_name_and_version(std::string(lib, static_cast<std::size_t>(len > 0 ? len : 0)));
  return {iters, emulated_nodes ? "emulated" : "real", topology_source(), mpi, version, nbrcoll_version()};
}

void progress(int rank, std::size_t done, std::size_t total, const std::string& what) {
  static const double start = MPI_Wtime();
  if (rank != 0 || total < 2) return;
  std::fprintf(stderr, "nbrcoll-bench: %zu/%zu %s done (%.1f s)\n", done, total, what.c_str(), MPI_Wtime() - start);
}

bool report_failures(const Checker& c, int rank) {
  int bad = c.failed ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (c.failed) std::fprintf(stderr, "nbrcoll-bench: VALIDATION FAILED on rank %d: %s\n", rank, c.first.c_str());
  return bad != 0;
}

}  // namespace nbrbench
