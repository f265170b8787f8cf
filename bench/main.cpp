// nbrcoll-bench: times MPI_Neighbor_allgather(v) and _alltoall(v) (blocking,
// nonblocking, persistent) with several algorithms side by side
// (interleaved) on the RSG, Moore, SpMM and edge-list patterns.
// Linked against nbrcoll_static, so the collectives go through nbrcoll.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "bench/bench_main.h"
#include "nbrcoll/nbrcoll.h"

namespace {

// NBRCOLL_CLUSTER_FINALIZE_DIR=DIR (set by bench/cluster/run.sh under MPICH):
// write DIR/finalize.RANK holding the exit status this rank returns, right
// before MPI_Finalize, with the output flushed. run.sh ends a job whose every
// rank got this far but whose MPI then hangs in MPI_Finalize (MPICH 4.0.2).
void mark_finalize(int rank, int status) {
  const char* dir = std::getenv("NBRCOLL_CLUSTER_FINALIZE_DIR");
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (dir == nullptr || *dir == '\0') return;
  const std::string path = std::string(dir) + "/finalize." + std::to_string(rank);
  std::ofstream f(path, std::ios::trunc);
  f << status << '\n';
  f.close();
  if (!f) std::cerr << "[rank " << rank << "] nbrcoll-bench: cannot write " << path << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  // --version answers without starting MPI (no mpirun needed);
  // --thread-multiple picks how MPI starts.
  bool thread_multiple = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--version") {
      std::cout << "nbrcoll-bench (nbrcoll) " << NBRCOLL_VERSION_STRING << '\n';
      return 0;
    }
    thread_multiple = thread_multiple || std::string(argv[i]) == "--thread-multiple";
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, thread_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (thread_multiple && provided != MPI_THREAD_MULTIPLE && rank == 0)
    std::cerr << "nbrcoll-bench: --thread-multiple: the MPI provides only thread level " << provided << "\n";
  const int rc = nbrbench::run_bench({argv + 1, argv + argc}, std::cout);
  mark_finalize(rank, rc);
  MPI_Finalize();
  return rc;
}
