// The neighborhood collectives' entry points: each one line into
// call/collective.cpp, which decides and runs the call or hands it to PMPI.
#include <mpi.h>

#include "call/collective.h"

extern "C" {

// Arguments a kind does not have stay null (see UserCall).
int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective({Kind::kAllgather, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                       recvcount, nullptr, nullptr, recvtype, comm});
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective({Kind::kAllgatherv, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, 0,
                                       recvcounts, displs, recvtype, comm});
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective({Kind::kAlltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                       recvcount, nullptr, nullptr, recvtype, comm});
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective(
      {Kind::kAlltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm});
}

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective({Kind::kAllgather, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                        recvcount, nullptr, nullptr, recvtype, comm},
                                       request);
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective({Kind::kAllgatherv, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, 0,
                                        recvcounts, displs, recvtype, comm},
                                       request);
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective({Kind::kAlltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                        recvcount, nullptr, nullptr, recvtype, comm},
                                       request);
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective(
      {Kind::kAlltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm},
      request);
}

#if MPI_VERSION >= 4
int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init({Kind::kAllgather, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                            recvcount, nullptr, nullptr, recvtype, comm},
                                           info, request);
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init({Kind::kAllgatherv, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                            0, recvcounts, displs, recvtype, comm},
                                           info, request);
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init({Kind::kAlltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                            recvcount, nullptr, nullptr, recvtype, comm},
                                           info, request);
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init(
      {Kind::kAlltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm},
      info, request);
}
#endif

}  // extern "C"
