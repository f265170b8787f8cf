// The bodies of the neighborhood collectives nbrcoll takes: validate,
// choose the variant of every block identically on every rank, run the plan
// (now, or through the progress engine for nonblocking calls) or hand the
// call to PMPI.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

enum class Kind : std::uint8_t { kAllgather, kAllgatherv, kAlltoall, kAlltoallv };
enum class Mode : std::uint8_t { kBlocking, kNonblocking, kPersistent };

// The call as the user made it. Counts and displacement arrays are null
// where the kind has none (allgather: all four; allgatherv: the send ones;
// alltoall: all four).
struct UserCall {
  Kind kind = Kind::kAllgather;
  const void* sendbuf = nullptr;
  int sendcount = 0;
  const int* sendcounts = nullptr;
  const int* sdispls = nullptr;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  int recvcount = 0;
  const int* recvcounts = nullptr;
  const int* rdispls = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  [[nodiscard]] bool alltoall() const { return kind == Kind::kAlltoall || kind == Kind::kAlltoallv; }
  [[nodiscard]] bool variable() const { return kind == Kind::kAllgatherv || kind == Kind::kAlltoallv; }
};

// MPI_Neighbor_<kind>.
int neighbor_collective(const UserCall& call);
// MPI_Ineighbor_<kind>.
int ineighbor_collective(const UserCall& call, MPI_Request* request);
#if MPI_VERSION >= 4
// MPI_Neighbor_<kind>_init (MPI 4): started by MPI_Start (persistent.h).
int neighbor_collective_init(const UserCall& call, MPI_Info info, MPI_Request* request);
#endif

}  // namespace nbrcoll
