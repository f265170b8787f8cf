// A neighborhood collective as the application made it: which kind, which
// mode, and its arguments exactly as given.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

enum class Kind : std::uint8_t { kAllgather, kAllgatherv, kAlltoall, kAlltoallv, kAlltoallw };
constexpr unsigned kKindCount = 5;
enum class Mode : std::uint8_t { kBlocking, kNonblocking, kPersistent };

// The arguments of a large-count (MPI 4 "_c") call as the application gave
// them; null and 0 where the kind has none, as in UserCall.
struct LargeCounts {
  MPI_Count sendcount = 0;
  const MPI_Count* sendcounts = nullptr;
  const MPI_Aint* sdispls = nullptr;
  MPI_Count recvcount = 0;
  const MPI_Count* recvcounts = nullptr;
  const MPI_Aint* rdispls = nullptr;  // allgatherv: displs
};

// Alltoallw's arrays that no other kind has: byte displacements and a
// datatype per send block (out-list entry) and per receive slot (in-list
// entry). Its counts are UserCall::sendcounts / recvcounts.
struct PerBlockTypes {
  const MPI_Aint* sdispls = nullptr;
  const MPI_Datatype* sendtypes = nullptr;
  const MPI_Aint* rdispls = nullptr;
  const MPI_Datatype* recvtypes = nullptr;
};

// Counts and displacement arrays are null where the kind has none
// (allgather: all four; allgatherv: the send ones; alltoall: all four;
// alltoallw: the int displacements and the single types, its own in `w`).
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
  // A large-count call: its counts and displacements (the int ones above
  // unset); call/large_counts.h.
  const LargeCounts* large = nullptr;
  const PerBlockTypes* w = nullptr;  // alltoallw only
  // A persistent call made through Open MPI's extension (MPIX_Neighbor_*_init,
  // support/persistent_forms.h): named so, and handed to PMPIX_.
  bool mpix = false;
  [[nodiscard]] bool alltoall() const {
    return kind == Kind::kAlltoall || kind == Kind::kAlltoallv || kind == Kind::kAlltoallw;
  }
  [[nodiscard]] bool variable() const { return kind == Kind::kAllgatherv || kind == Kind::kAlltoallv; }
};

// "MPI_Ineighbor_alltoallv" and the like.
const char* mpi_name(Kind kind, Mode mode);
// The same, "MPI_Ineighbor_alltoallv_c" for a large-count call and
// "MPIX_Neighbor_alltoallv_init" for Open MPI's extension.
const char* call_name(const UserCall& c, Mode mode);

}  // namespace nbrcoll
