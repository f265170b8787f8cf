// Graphs that rank 0 gives whole to MPI_Dist_graph_create (reorder 0, the
// other ranks give none), in several shapes, weighted and not, each created,
// checked (degrees, neighbours, weights, one neighbour allgather) and freed;
// then the same shapes by MPI_Dist_graph_create_adjacent. Run under Open
// MPI's default topology component (treematch), repeatedly
// (repeat_runs.sh): Open MPI 4.1 exchanges the edges on MPI_COMM_WORLD under
// tags that its own nonblocking allreduce of the communicator-id agreement
// reaches after some creations, and then a creation can hang. The point at
// which that happens follows from how many nonblocking collectives
// MPI_COMM_WORLD has seen; nbrcoll must not change it (shared_comm.h:
// quiet_copy), so this program, which does not hang without nbrcoll, must
// not hang with it (docs/KNOWN-ISSUES.md).
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/mpi/mpi_check.h"

using nbt::check;
using nbt::g_rank;
using nbt::g_size;

namespace {

bool edge(int shape, int from, int to, int size) {
  switch (shape) {
    case 0: return to == (from + 1) % size;          // ring
    case 1: return from != to;                       // complete
    case 2: return (from == 0) != (to == 0);         // star around 0
    default: return (from + to) % 3 == 0;            // irregular, self-loops
  }
}

int weight_of(int from, int to, int size) { return from * size + to + 1; }

// This rank's expected neighbours: sources (edges into it) and destinations,
// each with its weight, sorted (the MPI orders them as it likes).
std::vector<std::pair<int, int>> expected(int shape, bool into) {
  std::vector<std::pair<int, int>> v;
  for (int other = 0; other < g_size; ++other) {
    const int from = into ? other : g_rank, to = into ? g_rank : other;
    if (edge(shape, from, to, g_size)) v.emplace_back(other, weight_of(from, to, g_size));
  }
  return v;
}

void check_graph(MPI_Comm g, int shape, bool weighted, const std::string& what) {
  int in = -1, out = -1, w = -1;
  check(MPI_Dist_graph_neighbors_count(g, &in, &out, &w) == MPI_SUCCESS, what + ": neighbors_count");
  const auto want_in = expected(shape, true), want_out = expected(shape, false);
  check(in == static_cast<int>(want_in.size()) && out == static_cast<int>(want_out.size()), what + ": degrees");
  check((w != 0) == weighted, what + ": weighted flag");
  if (in != static_cast<int>(want_in.size()) || out != static_cast<int>(want_out.size())) return;
  std::vector<int> src(in + 1), sw(in + 1), dst(out + 1), dw(out + 1);
  check(MPI_Dist_graph_neighbors(g, in, src.data(), weighted ? sw.data() : MPI_UNWEIGHTED, out, dst.data(),
                                 weighted ? dw.data() : MPI_UNWEIGHTED) == MPI_SUCCESS,
        what + ": neighbors");
  auto pairs = [weighted](const std::vector<int>& r, const std::vector<int>& wt, int n) {
    std::vector<std::pair<int, int>> v;
    for (int i = 0; i < n; ++i) v.emplace_back(r[i], weighted ? wt[i] : 0);
    std::sort(v.begin(), v.end());
    return v;
  };
  auto unweigh = [weighted](std::vector<std::pair<int, int>> v) {
    if (!weighted)
      for (auto& p : v) p.second = 0;
    return v;
  };
  check(pairs(src, sw, in) == unweigh(want_in), what + ": sources");
  check(pairs(dst, dw, out) == unweigh(want_out), what + ": destinations");
  // Each source's block holds its rank, in the order the MPI listed them.
  std::vector<int> got(in + 1, -1);
  check(MPI_Neighbor_allgather(&g_rank, 1, MPI_INT, got.data(), 1, MPI_INT, g) == MPI_SUCCESS, what + ": allgather");
  bool same = true;
  for (int i = 0; i < in; ++i) same = same && got[i] == src[i];
  check(same, what + ": allgather blocks");
}

void whole(MPI_Comm parent, int shape, bool weighted) {
  std::vector<int> sources, degrees, destinations, weights;
  if (g_rank == 0) {
    for (int from = 0; from < g_size; ++from) {
      sources.push_back(from);
      degrees.push_back(0);
      for (int to = 0; to < g_size; ++to) {
        if (!edge(shape, from, to, g_size)) continue;
        destinations.push_back(to);
        weights.push_back(weight_of(from, to, g_size));
        ++degrees.back();
      }
    }
  }
  sources.push_back(0), degrees.push_back(0), destinations.push_back(0), weights.push_back(0);  // never empty
  const std::string what = "whole shape " + std::to_string(shape) + (weighted ? " weighted" : "");
  MPI_Comm g = MPI_COMM_NULL;
  const int n = g_rank == 0 ? g_size : 0;
  check(MPI_Dist_graph_create(parent, n, sources.data(), degrees.data(), destinations.data(),
                              weighted ? weights.data() : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g) == MPI_SUCCESS,
        what + ": create");
  if (g == MPI_COMM_NULL) return;
  check_graph(g, shape, weighted, what);
  MPI_Comm_free(&g);
}

void adjacent(int shape, bool weighted) {
  const auto in = expected(shape, true), out = expected(shape, false);
  std::vector<int> src{0}, sw{0}, dst{0}, dw{0};
  for (const auto& [r, w] : in) src.push_back(r), sw.push_back(w);
  for (const auto& [r, w] : out) dst.push_back(r), dw.push_back(w);
  const std::string what = "adjacent shape " + std::to_string(shape) + (weighted ? " weighted" : "");
  MPI_Comm g = MPI_COMM_NULL;
  check(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(in.size()), src.data() + 1,
                                       weighted ? sw.data() + 1 : MPI_UNWEIGHTED, static_cast<int>(out.size()),
                                       dst.data() + 1, weighted ? dw.data() + 1 : MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                       &g) == MPI_SUCCESS,
        what + ": create");
  if (g == MPI_COMM_NULL) return;
  check_graph(g, shape, weighted, what);
  MPI_Comm_free(&g);
}

}  // namespace

// whole_graph [ROUNDS]: ROUNDS times every shape, weighted and not, by both calls.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nbt::begin();
  nbt::expect_interposed({"MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent"});
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2;
  for (int round = 0; round < rounds; ++round) {
    for (int shape = 0; shape < 4; ++shape)
      for (const bool weighted : {false, true}) whole(MPI_COMM_WORLD, shape, weighted);
    for (int shape = 0; shape < 4; ++shape)
      for (const bool weighted : {false, true}) adjacent(shape, weighted);
  }
  return nbt::finish();
}
