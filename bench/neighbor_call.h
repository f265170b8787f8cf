// One neighbourhood collective (allgather, allgatherv, alltoall, alltoallv;
// blocking, nonblocking or persistent) on fixed buffers laid out by
// core/exchange.h, so that the timed region is exactly one call.
#pragma once

#include <mpi.h>

#include <vector>

#include "bench/core/exchange.h"

namespace nbrbench {

// Persistent neighbourhood collectives exist in this build's MPI: MPI 4's
// MPI_Neighbor_*_init, or Open MPI's extension MPIX_Neighbor_*_init.
bool persistent_available();

class NeighborCall {
 public:
  // `send` and `recv` are the send area and the receive area (guards
  // included) of `ex`; they must outlive the call. Persistent: the request
  // is initialised here (collective: every rank of `comm` constructs it with
  // the same op and mode), with the algorithm selected now.
  NeighborCall(Op op, Mode mode, const Exchange& ex, const void* send, void* recv, MPI_Comm comm);
  ~NeighborCall();
  NeighborCall(const NeighborCall&) = delete;
  NeighborCall& operator=(const NeighborCall&) = delete;

  // Blocking: the call. Nonblocking: MPI_Ineighbor_* and MPI_Wait.
  // Persistent: MPI_Start and MPI_Wait.
  void run() {
    start();
    wait();
  }
  // run()'s two halves: the call or its start; then, unless blocking, MPI_Wait.
  void start();
  void wait();

 private:
  int issue(Mode mode);  // the MPI function of `mode`; sets req_ unless blocking

  Op op_;
  Mode mode_;
  MPI_Comm comm_;
  const void* send_;
  void* recv_;  // the receive area + guard
  // Counts and displacements in bytes (MPI_BYTE); never empty, since an
  // MPI may reject a null array even for zero neighbours.
  std::vector<int> send_counts_, send_displs_, recv_counts_, recv_displs_;
  MPI_Request req_ = MPI_REQUEST_NULL;
};

}  // namespace nbrbench
