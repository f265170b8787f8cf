#include "bench/world.h"

#include <mpi.h>

#include <cstdlib>
#include <map>
#include <string>

namespace nbrbench {

World describe_world() {
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.procs);
  w.node_of.assign(static_cast<std::size_t>(w.procs), 0);
  int per_node = 0;
  if (const char* env = std::getenv("NBRCOLL_RANKS_PER_NODE")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0 && v <= w.procs) per_node = static_cast<int>(v);
  }
  if (per_node > 0) {
    w.emulated = true;
    for (int r = 0; r < w.procs; ++r) w.node_of[static_cast<std::size_t>(r)] = r / per_node;
  } else {
    // Key of a node: the lowest world rank on it.
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.rank, MPI_INFO_NULL, &local);
    int key = w.rank;
    MPI_Allreduce(MPI_IN_PLACE, &key, 1, MPI_INT, MPI_MIN, local);
    MPI_Comm_free(&local);
    MPI_Allgather(&key, 1, MPI_INT, w.node_of.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::map<int, int> index;
    for (int& n : w.node_of) n = index.emplace(n, static_cast<int>(index.size())).first->second;
  }
  w.nodes = 0;
  for (int n : w.node_of) w.nodes = std::max(w.nodes, n + 1);
  return w;
}

}  // namespace nbrbench
