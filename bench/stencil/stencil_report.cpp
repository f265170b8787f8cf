#include "bench/stencil/stencil_report.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "bench/core/round_order.h"
#include "bench/core/stats.h"
#include "bench/nbrcoll_hooks.h"

namespace nbrstencil {

void print_rows(const std::string& exchange, int n, int halo, int neighbours, long long face_bytes,
                const std::vector<std::string>& algos, const std::vector<nbrbench::Timed>& timed) {
  const auto native = std::find(algos.begin(), algos.end(), "native");
  for (std::size_t a = 0; a < algos.size(); ++a) {
    const nbrbench::Summary& us = timed[a].us;
    char speedup[32] = "-";
    char paired[32] = "-";
    if (native != algos.end() && us.median > 0) {
      const double base = timed[static_cast<std::size_t>(native - algos.begin())].us.median;
      std::snprintf(speedup, sizeof speedup, "%.2fx", base / us.median);
    }
    if (timed[a].paired) std::snprintf(paired, sizeof paired, "%.2fx", *timed[a].paired);
    std::printf("  %-8s %5d %4d %4d %9lld  %-10s %11.1f %11.1f %11.1f %8s %8s\n", exchange.c_str(), n, halo, neighbours,
                face_bytes, algos[a].c_str(), us.median, us.min, us.max, speedup, paired);
  }
  std::fflush(stdout);
}

}  // namespace nbrstencil

extern "C" {

int nbrstencil_select_algo(const char* name) {
  try {
    nbrbench::select_algo(name);
  } catch (const std::invalid_argument&) {
    return 1;
  }
  return 0;
}

void nbrstencil_round_order(long long round, int count, int* order) {
  std::vector<std::size_t> o(static_cast<std::size_t>(count));
  nbrbench::round_order(static_cast<std::uint64_t>(round), o);
  for (int i = 0; i < count; ++i) order[i] = static_cast<int>(o[static_cast<std::size_t>(i)]);
}

void nbrstencil_print_heading(const char* program, int dims, const int* procs, const int* periodic, int ranks,
                              int nodes, int iters, const char* mpi) {
  std::ostringstream grid;
  std::ostringstream wrap;
  for (int k = 0; k < dims; ++k) {
    grid << (k > 0 ? " x " : "") << procs[k];
    wrap << (k > 0 ? " " : "") << (periodic[k] != 0 ? 1 : 0);
  }
  std::printf(
      "# %s: %d-D halo exchange of doubles, %d ranks on %d node(s), process grid %s (periodic %s), "
      "%s; %d timed rounds, each algorithm once a round in shuffled order; times are the slowest "
      "rank's, speedup = native median / median, paired = median of per-round ratios\n",
      program, dims, ranks, nodes, grid.str().c_str(), wrap.str().c_str(), mpi, iters);
  std::printf("# %-8s %5s %4s %4s %9s  %-10s %11s %11s %11s %8s %8s\n", "exchange", "n", "halo", "nbrs", "face(B)",
              "algo", "median(us)", "min(us)", "max(us)", "speedup", "paired");
  std::fflush(stdout);
}

int nbrstencil_tuning_busy(int comm) {
  int busy = nbrbench::tuning_busy(MPI_Comm_f2c(comm)) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &busy, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  return busy;
}

void nbrstencil_print_settled(const char* exchange, int n, int calls) {
  std::printf("# %s n %d: auto timed after %d untimed calls (its tuning settled)\n", exchange, n, calls);
  std::fflush(stdout);
}

void nbrstencil_print_rows(const char* exchange, int n, int halo, int neighbours, long long face_bytes, int algos,
                           const char* comma_separated_algos, int iters, const double* seconds) {
  std::vector<std::string> names;
  std::stringstream list(comma_separated_algos);
  for (std::string a; std::getline(list, a, ',');) names.push_back(a);
  names.resize(static_cast<std::size_t>(algos));
  std::vector<std::vector<double>> us(static_cast<std::size_t>(algos));
  for (std::size_t a = 0; a < us.size(); ++a) {
    for (int i = 0; i < iters; ++i) us[a].push_back(seconds[a * static_cast<std::size_t>(iters) + i] * 1e6);
  }
  const auto native = std::find(names.begin(), names.end(), "native");
  std::vector<nbrbench::Timed> timed;
  for (std::size_t a = 0; a < us.size(); ++a) {
    timed.push_back({nbrbench::summarize(us[a]),
                     native == names.end()
                         ? std::nullopt
                         : nbrbench::median_ratio(us[static_cast<std::size_t>(native - names.begin())], us[a])});
  }
  nbrstencil::print_rows(exchange, n, halo, neighbours, face_bytes, names, timed);
}

}  // extern "C"
