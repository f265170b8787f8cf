// SpMM: C = A x B with A sparse (rows in blocks over the ranks) and B dense
// n x k (rows in blocks over the ranks). Each rank gathers the whole row
// blocks of B owned by the ranks its rows of A touch, with
// MPI_Neighbor_allgatherv over the graph those non-zeros induce; the timed
// region is graph creation plus the allgatherv, as in the paper.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>

#include "bench/core/fill.h"
#include "bench/core/matrix_gen.h"
#include "bench/harness.h"
#include "bench/nbrcoll_hooks.h"
#include "bench/patterns.h"

namespace nbrbench {

namespace {

constexpr int kGuardDoubles = 8;  // guard before, between and after the blocks

struct Layout {
  std::vector<std::int64_t> row_start;  // rows of A (and C) of rank p: [row_start[p], row_start[p+1])
  std::vector<std::int64_t> b_start;    // rows of B of rank p
  [[nodiscard]] int b_owner(std::int64_t row) const {
    return static_cast<int>(std::upper_bound(b_start.begin(), b_start.end(), row) - b_start.begin()) - 1;
  }
  [[nodiscard]] std::int64_t b_rows(int p) const {
    return b_start[static_cast<std::size_t>(p) + 1] - b_start[static_cast<std::size_t>(p)];
  }
};

std::vector<std::int64_t> blocks(std::int64_t n, int procs) {
  std::vector<std::int64_t> s(static_cast<std::size_t>(procs) + 1);
  for (int p = 0; p <= procs; ++p) s[static_cast<std::size_t>(p)] = n * p / procs;
  return s;
}

// Ranks whose B rows the A rows of rank p touch (p itself excluded).
std::vector<int> sources_of(const CsrMatrix& a, const Layout& l, int p) {
  std::set<int> src;
  for (auto r = l.row_start[static_cast<std::size_t>(p)]; r < l.row_start[static_cast<std::size_t>(p) + 1]; ++r)
    for (auto e = a.row_ptr[static_cast<std::size_t>(r)]; e < a.row_ptr[static_cast<std::size_t>(r) + 1]; ++e)
      src.insert(l.b_owner(a.col[static_cast<std::size_t>(e)]));
  src.erase(p);
  return {src.begin(), src.end()};
}

}  // namespace

Outcome run_spmm(const Options& o, const World& w) {
  const CsrMatrix a = load_matrix(o.matrix);
  const std::string name = matrix_name(o.matrix);
  const int procs = w.procs, me = w.rank;
  Layout l{blocks(a.rows, procs), blocks(a.cols, procs)};

  // The whole graph (every rank computes it) and this rank's lists.
  GraphSpec spec;
  std::size_t edges = 0;
  for (int p = 0; p < procs; ++p) {
    const auto src = sources_of(a, l, p);
    edges += src.size();
    if (p == me) spec.in = src;
    for (int s : src)
      if (s == me) spec.out.push_back(p);
  }

  Outcome res;
  {
    std::ostringstream d;
    d << "spmm (matrix " << name << ", " << a.rows << " x " << a.cols << ", nnz " << a.nnz() << "), " << procs
      << " procs, " << w.nodes << " nodes" << (w.emulated ? " (emulated)" : "") << ", " << edges << " edges";
    res.description = d.str();
  }
  Checker chk;
  std::uint64_t call = 1;
  const auto my_rows = l.row_start[static_cast<std::size_t>(me) + 1] - l.row_start[static_cast<std::size_t>(me)];
  std::size_t step = 0;
  for (const int k : o.cols) {
    std::int64_t max_rows = 0;
    for (int p = 0; p < procs; ++p) max_rows = std::max(max_rows, l.b_rows(p));
    if (max_rows * k > INT_MAX) throw std::runtime_error("spmm: a block of B exceeds INT_MAX doubles");
    const int sendcount = static_cast<int>(l.b_rows(me) * k);
    std::vector<int> counts, displs;
    int total = kGuardDoubles;
    for (int s : spec.in) {
      displs.push_back(total);
      counts.push_back(static_cast<int>(l.b_rows(s) * k));
      total += counts.back() + kGuardDoubles;
    }
    std::vector<double> b_local(static_cast<std::size_t>(sendcount));
    std::vector<double> recv(static_cast<std::size_t>(total));
    std::vector<double> c(static_cast<std::size_t>(my_rows * k));
    const double guard = [] {
      double g;
      std::memset(&g, kGuardByte, sizeof g);
      return g;
    }();
    std::vector<int> slot_of(static_cast<std::size_t>(procs), -1);
    for (std::size_t i = 0; i < spec.in.size(); ++i)
      slot_of[static_cast<std::size_t>(spec.in[i])] = static_cast<int>(i);
    const auto b0 = l.b_start[static_cast<std::size_t>(me)];

    CallSteps steps;
    steps.prepare = [&](std::size_t, std::uint64_t cl) {
      for (std::int64_t r = 0; r < l.b_rows(me); ++r)
        for (int j = 0; j < k; ++j) b_local[static_cast<std::size_t>(r * k + j)] = b_value(b0 + r, j, cl);
      if (o.validate) std::fill(recv.begin(), recv.end(), guard);
    };
    // --reuse-graph: each way's graph made once for this k, under its own
    // setting (as neighbor_bench does), else one per call, its creation timed.
    std::vector<MPI_Comm> kept(o.algos.size(), MPI_COMM_NULL);
    if (o.reuse_graph)
      for (std::size_t alg = 0; alg < o.algos.size(); ++alg) {
        select_algo(o.algos[alg]);
        kept[alg] = create_graph(spec);
      }
    steps.run = [&](std::size_t alg) {
      MPI_Comm g = o.reuse_graph ? kept[alg] : create_graph(spec);
      // An empty vector's data() may be NULL, which an MPI may reject even
      // for zero elements (a rank without in-neighbours, or without rows of B).
      int spare_count = 0, spare_displ = 0;
      double spare_send = 0.0;
      MPI_Neighbor_allgatherv(b_local.empty() ? &spare_send : b_local.data(), sendcount, MPI_DOUBLE, recv.data(),
                              counts.empty() ? &spare_count : counts.data(),
                              displs.empty() ? &spare_displ : displs.data(), MPI_DOUBLE, g);
      if (!o.reuse_graph) MPI_Comm_free(&g);
    };
    if (o.validate)
      steps.check = [&](std::size_t alg, std::uint64_t cl) {
        if (o.inject_fault && me == procs - 1 && !counts.empty() && counts[0] > 0)
          recv[static_cast<std::size_t>(displs[0])] += 1.0;
        const std::string what = o.algos[alg] + " cols " + std::to_string(k) + " call " + std::to_string(cl);
        // Every received value and every guard.
        std::vector<char> in_block(recv.size(), 0);
        for (std::size_t i = 0; i < spec.in.size(); ++i) {
          const auto b = l.b_start[static_cast<std::size_t>(spec.in[i])];
          for (int e = 0; e < counts[i]; ++e) {
            const std::size_t at = static_cast<std::size_t>(displs[i] + e);
            in_block[at] = 1;
            if (recv[at] != b_value(b + e / k, e % k, cl)) {
              chk.fail(what + ": slot " + std::to_string(i) + " (source rank " + std::to_string(spec.in[i]) +
                       ") element " + std::to_string(e) + " wrong");
              return;
            }
          }
        }
        for (std::size_t at = 0; at < recv.size(); ++at)
          if (!in_block[at] && std::memcmp(&recv[at], &guard, sizeof guard) != 0) {
            chk.fail(what + ": guard element " + std::to_string(at) + " overwritten");
            return;
          }
        // C = A x B for this rank's rows, against the serial product.
        std::fill(c.begin(), c.end(), 0.0);
        for (std::int64_t r = 0; r < my_rows; ++r) {
          const auto row = l.row_start[static_cast<std::size_t>(me)] + r;
          for (auto e = a.row_ptr[static_cast<std::size_t>(row)]; e < a.row_ptr[static_cast<std::size_t>(row) + 1];
               ++e) {
            const auto col = a.col[static_cast<std::size_t>(e)];
            const int owner = l.b_owner(col);
            const double* brow = owner == me
                                     ? &b_local[static_cast<std::size_t>((col - b0) * k)]
                                     : &recv[static_cast<std::size_t>(
                                           displs[static_cast<std::size_t>(slot_of[static_cast<std::size_t>(owner)])] +
                                           (col - l.b_start[static_cast<std::size_t>(owner)]) * k)];
            for (int j = 0; j < k; ++j)
              c[static_cast<std::size_t>(r * k + j)] += a.value[static_cast<std::size_t>(e)] * brow[j];
          }
          for (int j = 0; j < k; ++j) {
            double ref = 0.0;
            for (auto e = a.row_ptr[static_cast<std::size_t>(row)]; e < a.row_ptr[static_cast<std::size_t>(row) + 1];
                 ++e)
              ref += a.value[static_cast<std::size_t>(e)] * b_value(a.col[static_cast<std::size_t>(e)], j, cl);
            const double got = c[static_cast<std::size_t>(r * k + j)];
            if (std::abs(got - ref) > 1e-12 * std::abs(ref)) {
              std::ostringstream s;
              s << what << ": C(" << row << "," << j << ") = " << got << ", serial product " << ref;
              chk.fail(s.str());
              return;
            }
          }
        }
      };
    // auto is timed as a program that repeats the call runs it: once its
    // graph has planned and its tuning settled (a new graph per call never
    // plans: src/state/late_plans.h).
    for (std::size_t alg = 0; o.reuse_graph && alg < o.algos.size(); ++alg) {
      if (o.algos[alg] != "auto") continue;
      const int made = settle(alg, o.algos[alg], kept[alg], kSettleLimit, call, steps);
      if (made > 0)
        res.settled += (res.settled.empty() ? "" : ", ") + ("k=" + std::to_string(k)) + " " + std::to_string(made);
    }
    const auto sums = time_interleaved(o.algos, o.warmup, o.iters, call, steps);
    for (MPI_Comm& g : kept)
      if (g != MPI_COMM_NULL) MPI_Comm_free(&g);
    const auto block_bytes = static_cast<std::uint64_t>(max_rows * k) * sizeof(double);
    const std::string params = "matrix=" + name + ";cols=" + std::to_string(k);
    for (std::size_t i = 0; i < o.algos.size(); ++i)
      res.rows.push_back({"spmm",
                          params,
                          procs,
                          w.nodes,
                          block_bytes,
                          o.algos[i],
                          sums[i].us,
                          {},
                          op_name(Op::kAllgatherv, Mode::kBlocking),
                          {},
                          sums[i].paired,
                          {},
                          {}});
    progress(me, ++step, o.cols.size(), "cols " + std::to_string(k));

    if (k == o.cols.back()) {  // traffic at the last (largest) column count
      std::vector<MPI_Comm> comms;
      for (const auto& alg : o.algos) {
        select_algo(alg);
        comms.push_back(create_graph(spec));
      }
      res.traffic_block = block_bytes;
      res.traffic = collect_traffic(Op::kAllgatherv, o.algos, comms, w, spec.out, [&](int origin, std::size_t) {
        return static_cast<std::uint64_t>(l.b_rows(origin) * k) * sizeof(double);
      });
      for (MPI_Comm& g : comms) MPI_Comm_free(&g);
    }
  }
  res.failed = report_failures(chk, w.rank);
  compute_speedups(res.rows);
  res.create = time_creation(o.algos, o.create_reps, spec);
  return res;
}

}  // namespace nbrbench
