// The neighborhood collectives' entry points: each one line into
// call/collective.cpp, which decides and runs the call or hands it to PMPI.
#include <mpi.h>

#include "call/collective.h"

namespace {

// Alltoallw's call: its counts, and in `w` (alive for the entry point's
// duration) its byte displacements and per-block datatypes.
nbrcoll::UserCall alltoallw(const void* sendbuf, const int* sendcounts, void* recvbuf, const int* recvcounts,
                            MPI_Comm comm, const nbrcoll::PerBlockTypes& w) {
  nbrcoll::UserCall c;
  c.kind = nbrcoll::Kind::kAlltoallw;
  c.sendbuf = sendbuf;
  c.sendcounts = sendcounts;
  c.recvbuf = recvbuf;
  c.recvcounts = recvcounts;
  c.comm = comm;
  c.w = &w;
  return c;
}

#if NBRCOLL_PERSISTENT
// `c` as the persistent form made through MPIX_ (`mpix`) or MPI_.
nbrcoll::UserCall persistent(nbrcoll::UserCall c, bool mpix) {
  c.mpix = mpix;
  return c;
}

// MPI_Neighbor_allgather_init or _alltoall_init (one count a side), through MPIX_ (`mpix`) or MPI_.
int one_count_init(nbrcoll::Kind kind, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request,
                   bool mpix) {
  return nbrcoll::neighbor_collective_init(persistent({kind, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                                       recvcount, nullptr, nullptr, recvtype, comm},
                                                      mpix),
                                           info, request);
}
#endif

}  // namespace

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

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const nbrcoll::PerBlockTypes w{sdispls, sendtypes, rdispls, recvtypes};
  return nbrcoll::neighbor_collective(alltoallw(sendbuf, sendcounts, recvbuf, recvcounts, comm, w));
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

int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  const nbrcoll::PerBlockTypes w{sdispls, sendtypes, rdispls, recvtypes};
  return nbrcoll::ineighbor_collective(alltoallw(sendbuf, sendcounts, recvbuf, recvcounts, comm, w), request);
}

// The persistent forms (support/persistent_forms.h): MPI 4's
// MPI_Neighbor_<kind>_init and Open MPI's extension MPIX_Neighbor_<kind>_init
// take the same arguments and the same path; an MPIX_ call is marked so
// (UserCall::mpix) for its name and its hand-off to PMPIX_.
#define NBRCOLL_INIT_ENTRIES(PREFIX, MPIX)                                                                             \
  int PREFIX##Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,        \
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,              \
                                      MPI_Request* request) {                                                          \
    return one_count_init(nbrcoll::Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, \
                          info, request, MPIX);                                                                        \
  }                                                                                                                    \
  int PREFIX##Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,       \
                                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,              \
                                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {                           \
    return nbrcoll::neighbor_collective_init(                                                                          \
        persistent({nbrcoll::Kind::kAllgatherv, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, 0,            \
                    recvcounts, displs, recvtype, comm},                                                               \
                   MPIX),                                                                                              \
        info, request);                                                                                                \
  }                                                                                                                    \
  int PREFIX##Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,         \
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,               \
                                     MPI_Request* request) {                                                           \
    return one_count_init(nbrcoll::Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,  \
                          info, request, MPIX);                                                                        \
  }                                                                                                                    \
  int PREFIX##Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],                \
                                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],                    \
                                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,        \
                                      MPI_Request* request) {                                                          \
    return nbrcoll::neighbor_collective_init(persistent({nbrcoll::Kind::kAlltoallv, sendbuf, 0, sendcounts, sdispls,   \
                                                         sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm},   \
                                                        MPIX),                                                         \
                                             info, request);                                                           \
  }                                                                                                                    \
  int PREFIX##Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],           \
                                      const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],           \
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,         \
                                      MPI_Info info, MPI_Request* request) {                                           \
    const nbrcoll::PerBlockTypes w{sdispls, sendtypes, rdispls, recvtypes};                                            \
    return nbrcoll::neighbor_collective_init(                                                                          \
        persistent(alltoallw(sendbuf, sendcounts, recvbuf, recvcounts, comm, w), MPIX), info, request);                \
  }

#if NBRCOLL_MPI4_PERSISTENT
NBRCOLL_INIT_ENTRIES(MPI_, false)
#endif
#if NBRCOLL_MPIX_PERSISTENT
NBRCOLL_INIT_ENTRIES(MPIX_, true)
#endif

}  // extern "C"
