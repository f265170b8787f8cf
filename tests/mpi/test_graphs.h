// Virtual topologies the MPI test programs share: every rank generates every
// rank's lists from one seed, so each knows the whole graph.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

struct Graph {
  std::string name;
  // Every rank's lists, known on every rank (generated from one seed).
  std::vector<std::vector<int>> in;
  std::vector<std::vector<int>> out;
  bool has_null = false;
  // A Cartesian communicator's lists ((-1, +1) pairs per dimension): the
  // block a rank sends on out-edge j fills the receiver's slot j ^ 1
  // (MPI-4.1 section 8.6), not the distributed-graph rule's slot.
  bool cartesian = false;
  // This process's rank in the graph's communicator where it is not its
  // rank in MPI_COMM_WORLD (reordered or smaller communicators); -1: it is.
  int self = -1;
};

// The graph communicator of `g` over MPI_COMM_WORLD, this process being
// `rank` (adjacent lists, unweighted, no reordering).
inline MPI_Comm create_adjacent(const Graph& g, int rank, MPI_Comm parent = MPI_COMM_WORLD) {
  const auto& in = g.in[static_cast<std::size_t>(rank)];
  const auto& out = g.out[static_cast<std::size_t>(rank)];
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(parent, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  return c;
}

inline void add_edge(Graph& g, int s, int d) {
  g.out[static_cast<std::size_t>(s)].push_back(d);
  g.in[static_cast<std::size_t>(d)].push_back(s);
}

inline Graph empty_graph(int size, const std::string& name) {
  Graph g;
  g.name = name;
  g.in.resize(static_cast<std::size_t>(size));
  g.out.resize(static_cast<std::size_t>(size));
  return g;
}

// Erdos-Renyi with optional duplicate and self edges and MPI_PROC_NULL entries,
// the lists shuffled so sources are not in rank order.
inline Graph random_graph(int size, const std::string& name, double density, unsigned seed, bool dups, bool selfs,
                          bool nulls) {
  Graph g = empty_graph(size, name);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int s = 0; s < size; ++s) {
    for (int d = 0; d < size; ++d) {
      if (s == d && !selfs) continue;
      if (u(rng) < density) add_edge(g, s, d);
      if (dups && u(rng) < 0.15) add_edge(g, s, d);
    }
  }
  if (nulls) {
    for (int r = 0; r < size; ++r) {
      if (u(rng) < 0.5) g.in[static_cast<std::size_t>(r)].push_back(MPI_PROC_NULL);
      if (u(rng) < 0.5) g.out[static_cast<std::size_t>(r)].push_back(MPI_PROC_NULL);
    }
    g.has_null = true;
  }
  // Shuffle each list; a source's k-th occurrence still pairs with the k-th
  // occurrence in the destination's list because shuffling keeps multiplicities.
  for (auto& l : g.in) std::shuffle(l.begin(), l.end(), rng);
  for (auto& l : g.out) std::shuffle(l.begin(), l.end(), rng);
  return g;
}

inline Graph ring_graph(int size) {
  Graph g = empty_graph(size, "ring");
  for (int r = 0; r < size; ++r) {
    add_edge(g, r, (r + 1) % size);
    add_edge(g, r, (r + size - 1) % size);
  }
  return g;
}

inline Graph star_graph(int size) {
  Graph g = empty_graph(size, "star");
  for (int r = 1; r < size; ++r) {
    add_edge(g, 0, r);
    add_edge(g, r, 0);
  }
  return g;
}

// A distributed graph communicator's lists as the MPI orders them, every
// rank's (collective over `comm`): MPI_Dist_graph_create orders them as it
// likes.
inline Graph lists_of(MPI_Comm comm, const std::string& name) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  int degrees[3] = {0, 0, 0};  // in, out, weighted
  MPI_Dist_graph_neighbors_count(comm, &degrees[0], &degrees[1], &degrees[2]);
  std::vector<int> mine(static_cast<std::size_t>(degrees[0] + degrees[1]) + 1);
  MPI_Dist_graph_neighbors(comm, degrees[0], mine.data(), MPI_UNWEIGHTED, degrees[1], mine.data() + degrees[0],
                           MPI_UNWEIGHTED);
  std::vector<int> all_degrees(2 * static_cast<std::size_t>(size));
  MPI_Allgather(degrees, 2, MPI_INT, all_degrees.data(), 2, MPI_INT, comm);
  std::vector<int> counts(static_cast<std::size_t>(size));
  std::vector<int> displs(static_cast<std::size_t>(size));
  int total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    counts[r] = all_degrees[2 * r] + all_degrees[2 * r + 1];
    displs[r] = total;
    total += counts[r];
  }
  std::vector<int> lists(static_cast<std::size_t>(total) + 1);
  MPI_Allgatherv(mine.data(), degrees[0] + degrees[1], MPI_INT, lists.data(), counts.data(), displs.data(), MPI_INT,
                 comm);
  Graph g = empty_graph(size, name);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    const auto at = lists.begin() + displs[r];
    g.in[r].assign(at, at + all_degrees[2 * r]);
    g.out[r].assign(at + all_degrees[2 * r], at + counts[r]);
  }
  return g;
}
