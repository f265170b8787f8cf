// The body of our MPI_Neighbor_allgather / MPI_Neighbor_allgatherv: validate,
// choose the algorithm identically on every rank, run the plan or hand the
// call to PMPI.
#pragma once

#include <mpi.h>

namespace nbrcoll {

// The call as the user made it; recvcounts/displs are null for allgather.
struct UserCall {
  const void* sendbuf;
  int sendcount;
  MPI_Datatype sendtype;
  void* recvbuf;
  int recvcount;          // allgather
  const int* recvcounts;  // allgatherv
  const int* displs;      // allgatherv
  MPI_Datatype recvtype;
  MPI_Comm comm;
  [[nodiscard]] bool is_v() const { return recvcounts != nullptr || displs != nullptr; }
};

int neighbor_allgather(const UserCall& call, bool variable);

}  // namespace nbrcoll
