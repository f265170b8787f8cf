// A neighborhood collective as the application made it: which kind, which
// mode, and its arguments exactly as given.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

enum class Kind : std::uint8_t { kAllgather, kAllgatherv, kAlltoall, kAlltoallv };
enum class Mode : std::uint8_t { kBlocking, kNonblocking, kPersistent };

// Counts and displacement arrays are null where the kind has none
// (allgather: all four; allgatherv: the send ones; alltoall: all four).
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

// "MPI_Ineighbor_alltoallv" and the like.
const char* mpi_name(Kind kind, Mode mode);

}  // namespace nbrcoll
