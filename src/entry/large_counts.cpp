// MPI 4's large-count neighborhood collectives (MPI_Count counts, MPI_Aint
// displacements; MPICH 4 has them, Open MPI 4.1 has none): each one line
// into call/collective.cpp with its arguments in a LargeCounts, which
// decide() takes as the int form where everything fits an int and hands to
// the MPI's own _c call otherwise (call/large_counts.h).
#include <mpi.h>

#if MPI_VERSION >= 4

#include "call/collective.h"

namespace {

using nbrcoll::Kind;
using nbrcoll::LargeCounts;
using nbrcoll::UserCall;

// The call of `kind` with the large-count arguments `l` (the int ones unset).
UserCall call(Kind kind, const void* sendbuf, MPI_Datatype sendtype, void* recvbuf, MPI_Datatype recvtype,
              MPI_Comm comm, const LargeCounts& l) {
  UserCall c;
  c.kind = kind;
  c.sendbuf = sendbuf;
  c.sendtype = sendtype;
  c.recvbuf = recvbuf;
  c.recvtype = recvtype;
  c.comm = comm;
  c.large = &l;
  return c;
}

// The three shapes of arguments: one count a side (allgather, alltoall),
// allgatherv's, alltoallv's.
struct Fixed {
  LargeCounts l;
  UserCall c;
  Fixed(Kind kind, const void* sb, MPI_Count sc, MPI_Datatype st, void* rb, MPI_Count rc, MPI_Datatype rt,
        MPI_Comm comm)
      : l{sc, nullptr, nullptr, rc, nullptr, nullptr}, c(call(kind, sb, st, rb, rt, comm, l)) {}
};
struct Gatherv {
  LargeCounts l;
  UserCall c;
  Gatherv(const void* sb, MPI_Count sc, MPI_Datatype st, void* rb, const MPI_Count* rcs, const MPI_Aint* displs,
          MPI_Datatype rt, MPI_Comm comm)
      : l{sc, nullptr, nullptr, 0, rcs, displs}, c(call(Kind::kAllgatherv, sb, st, rb, rt, comm, l)) {}
};
struct Alltoallv {
  LargeCounts l;
  UserCall c;
  Alltoallv(const void* sb, const MPI_Count* scs, const MPI_Aint* sds, MPI_Datatype st, void* rb, const MPI_Count* rcs,
            const MPI_Aint* rds, MPI_Datatype rt, MPI_Comm comm)
      : l{0, scs, sds, 0, rcs, rds}, c(call(Kind::kAlltoallv, sb, st, rb, rt, comm, l)) {}
};

}  // namespace

extern "C" {

int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const Fixed a(Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return nbrcoll::neighbor_collective(a.c);
}

int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                              MPI_Comm comm) {
  const Gatherv a(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  return nbrcoll::neighbor_collective(a.c);
}

int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const Fixed a(Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return nbrcoll::neighbor_collective(a.c);
}

int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                             MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                             const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const Alltoallv a(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  return nbrcoll::neighbor_collective(a.c);
}

int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Fixed a(Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return nbrcoll::ineighbor_collective(a.c, request);
}

int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request) {
  const Gatherv a(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  return nbrcoll::ineighbor_collective(a.c, request);
}

int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Fixed a(Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return nbrcoll::ineighbor_collective(a.c, request);
}

int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Alltoallv a(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  return nbrcoll::ineighbor_collective(a.c, request);
}

int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  const Fixed a(Kind::kAllgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return nbrcoll::neighbor_collective_init(a.c, info, request);
}

int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  const Gatherv a(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  return nbrcoll::neighbor_collective_init(a.c, info, request);
}

int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request* request) {
  const Fixed a(Kind::kAlltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return nbrcoll::neighbor_collective_init(a.c, info, request);
}

int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                                  MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request* request) {
  const Alltoallv a(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  return nbrcoll::neighbor_collective_init(a.c, info, request);
}

}  // extern "C"

#endif
