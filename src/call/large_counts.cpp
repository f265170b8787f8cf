#include "call/large_counts.h"

#include <climits>

namespace nbrcoll {

namespace {

template <class Wide>
bool fits(Wide v) {
  return v >= INT_MIN && v <= INT_MAX;
}

// `n` entries of `wide` as ints into `to` (pointed at by `at`); a null
// array stays null.
template <class Wide>
bool narrow_array(const Wide* wide, std::size_t n, std::vector<int>& to, const int*& at) {
  at = nullptr;
  if (wide == nullptr) return true;
  to.resize(n);
  to.reserve(1);  // never a null data() for an empty neighbourhood
  for (std::size_t i = 0; i < n; ++i) {
    if (!fits(wide[i])) return false;
    to[i] = static_cast<int>(wide[i]);
  }
  at = to.data();
  return true;
}

}  // namespace

const char* call_name(const UserCall& c, Mode mode) {
  if (c.mpix) {
    static const char* const mpix[kKindCount] = {"MPIX_Neighbor_allgather_init", "MPIX_Neighbor_allgatherv_init",
                                                 "MPIX_Neighbor_alltoall_init", "MPIX_Neighbor_alltoallv_init",
                                                 "MPIX_Neighbor_alltoallw_init"};
    return mpix[static_cast<int>(c.kind)];
  }
  if (c.large == nullptr) return mpi_name(c.kind, mode);
  // (alltoallw's _c forms are the MPI's own: nbrcoll does not export them.)
  static const char* const names[3][kKindCount] = {
      {"MPI_Neighbor_allgather_c", "MPI_Neighbor_allgatherv_c", "MPI_Neighbor_alltoall_c", "MPI_Neighbor_alltoallv_c",
       "MPI_Neighbor_alltoallw_c"},
      {"MPI_Ineighbor_allgather_c", "MPI_Ineighbor_allgatherv_c", "MPI_Ineighbor_alltoall_c",
       "MPI_Ineighbor_alltoallv_c", "MPI_Ineighbor_alltoallw_c"},
      {"MPI_Neighbor_allgather_init_c", "MPI_Neighbor_allgatherv_init_c", "MPI_Neighbor_alltoall_init_c",
       "MPI_Neighbor_alltoallv_init_c", "MPI_Neighbor_alltoallw_init_c"}};
  return names[static_cast<int>(mode)][static_cast<int>(c.kind)];
}

bool narrow(const UserCall& c, std::size_t in_degree, std::size_t out_degree, NarrowedCall& out) {
  const LargeCounts& l = *c.large;
  out.call = c;
  out.call.large = nullptr;
  if (!fits(l.sendcount) || !fits(l.recvcount)) return false;
  out.call.sendcount = static_cast<int>(l.sendcount);
  out.call.recvcount = static_cast<int>(l.recvcount);
  return narrow_array(l.sendcounts, out_degree, out.sendcounts, out.call.sendcounts) &&
         narrow_array(l.sdispls, out_degree, out.sdispls, out.call.sdispls) &&
         narrow_array(l.recvcounts, in_degree, out.recvcounts, out.call.recvcounts) &&
         narrow_array(l.rdispls, in_degree, out.rdispls, out.call.rdispls);
}

#if MPI_VERSION >= 4
int pmpi_large(const UserCall& c, Mode mode, MPI_Info info, MPI_Request* r) {
  const LargeCounts& l = *c.large;
  const void* s = c.sendbuf;
  void* rb = c.recvbuf;
  const MPI_Datatype st = c.sendtype;
  const MPI_Datatype rt = c.recvtype;
  switch (mode) {
    case Mode::kBlocking:
      switch (c.kind) {
        case Kind::kAllgather:
          return PMPI_Neighbor_allgather_c(s, l.sendcount, st, rb, l.recvcount, rt, c.comm);
        case Kind::kAllgatherv:
          return PMPI_Neighbor_allgatherv_c(s, l.sendcount, st, rb, l.recvcounts, l.rdispls, rt, c.comm);
        case Kind::kAlltoall:
          return PMPI_Neighbor_alltoall_c(s, l.sendcount, st, rb, l.recvcount, rt, c.comm);
        case Kind::kAlltoallv:
          return PMPI_Neighbor_alltoallv_c(s, l.sendcounts, l.sdispls, st, rb, l.recvcounts, l.rdispls, rt, c.comm);
        case Kind::kAlltoallw:  // no large-count alltoallw entry point: never here
          break;
      }
      break;
    case Mode::kNonblocking:
      switch (c.kind) {
        case Kind::kAllgather:
          return PMPI_Ineighbor_allgather_c(s, l.sendcount, st, rb, l.recvcount, rt, c.comm, r);
        case Kind::kAllgatherv:
          return PMPI_Ineighbor_allgatherv_c(s, l.sendcount, st, rb, l.recvcounts, l.rdispls, rt, c.comm, r);
        case Kind::kAlltoall:
          return PMPI_Ineighbor_alltoall_c(s, l.sendcount, st, rb, l.recvcount, rt, c.comm, r);
        case Kind::kAlltoallv:
          return PMPI_Ineighbor_alltoallv_c(s, l.sendcounts, l.sdispls, st, rb, l.recvcounts, l.rdispls, rt, c.comm, r);
        case Kind::kAlltoallw:  // no large-count alltoallw entry point: never here
          break;
      }
      break;
    case Mode::kPersistent:
      switch (c.kind) {
        case Kind::kAllgather:
          return PMPI_Neighbor_allgather_init_c(s, l.sendcount, st, rb, l.recvcount, rt, c.comm, info, r);
        case Kind::kAllgatherv:
          return PMPI_Neighbor_allgatherv_init_c(s, l.sendcount, st, rb, l.recvcounts, l.rdispls, rt, c.comm, info, r);
        case Kind::kAlltoall:
          return PMPI_Neighbor_alltoall_init_c(s, l.sendcount, st, rb, l.recvcount, rt, c.comm, info, r);
        case Kind::kAlltoallv:
          return PMPI_Neighbor_alltoallv_init_c(s, l.sendcounts, l.sdispls, st, rb, l.recvcounts, l.rdispls, rt, c.comm,
                                                info, r);
        case Kind::kAlltoallw:  // no large-count alltoallw entry point: never here
          break;
      }
      break;
  }
  return MPI_ERR_INTERN;
}
#endif

}  // namespace nbrcoll
