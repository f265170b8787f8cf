#include "call/arguments.h"

#include "call/datatype.h"

namespace nbrcoll {

namespace {

// A null buffer is MPI_BOTTOM: valid when the datatype holds absolute
// addresses (its true lower bound is not 0), an error otherwise.
bool bottom_without_addresses(const void* buf, MPI_Datatype type) {
  if (buf != nullptr) return false;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  return true_lb == 0;
}

// The argument checks below differ between the MPIs; each rule names the
// MPI whose behaviour it follows (anything not Open MPI is taken as MPICH).
#if defined(OPEN_MPI)
constexpr bool kOpenMpi = true;
#else
constexpr bool kOpenMpi = false;
#endif

// Which datatypes of an alltoallw the MPI checks before it communicates:
// Open MPI 4.1 every block's (ompi/mpi/c/neighbor_alltoallw.c), MPICH 4.0
// only those of blocks with elements (a zero-count block may name any
// type, MPI_DATATYPE_NULL included). A type this MPI checks and nbrcoll
// cannot describe makes the call an argument error (handed to PMPI); one it
// does not check must not (the call is valid there, its block is empty).
constexpr bool kEmptyBlockTypesChecked = kOpenMpi;

// Where a side has no neighbours its count and displacement arrays may be
// null: both MPIs take alltoallv(w) so (PETSc passes null arrays for a
// scatter's empty side: its KSP ex45 hung when nbrcoll handed only those
// ranks' calls to the MPI as argument errors). allgatherv's receive
// arrays: MPICH 4.0 takes them null on no in-neighbours; Open MPI 4.1
// reports MPI_ERR_ARG whatever the degree (tests/mpi/adversarial.cpp,
// "arguments" and "null arrays"), and so do Open MPI's persistent MPIX_
// forms for alltoallv (MPICH's MPI_*_init take them as its nonblocking
// calls do).
constexpr bool kNullAllgathervArraysChecked = kOpenMpi;

// Open MPI 4.1 checks alltoallv's datatypes once per neighbour, so a side
// without neighbours may name MPI_DATATYPE_NULL; MPICH 4.0 reports
// MPI_ERR_TYPE, and both do for the other kinds.
constexpr bool kNullTypeOnEmptyAlltoallvSide = kOpenMpi;

// A side's datatype as the MPI takes it (`degree`: the side's neighbours):
// one it can describe, or MPI_DATATYPE_NULL where the MPI allows it. A
// null one reaching CallLayout::measure is thus on an empty side.
bool side_type_ok(Kind kind, MPI_Datatype type, std::size_t degree) {
  if (type == MPI_DATATYPE_NULL) return kNullTypeOnEmptyAlltoallvSide && kind == Kind::kAlltoallv && degree == 0;
  TypeLayout probe;
  return describe_type(type, probe) == MPI_SUCCESS;
}

// A side's count and displacement arrays as the MPI takes them: present,
// or null on a side without neighbours (allgatherv under Open MPI: never).
bool side_arrays_ok(const void* counts, const void* displacements, std::size_t degree, bool null_never_ok) {
  if (counts != nullptr && displacements != nullptr) return true;
  return degree == 0 && !null_never_ok;
}

// One side of an alltoallw: `n` blocks of counts[j] elements of types[j] at
// byte displacements[j] from `buf`, peers[j] their ranks. Fills the side's
// arrays of `args`; false on an argument error. `any`: some block of a
// real peer has bytes.
bool per_block_side(const void* buf, const int* counts, const MPI_Aint* displacements, const MPI_Datatype* types,
                    const std::vector<int>& peers, std::vector<int>& out_counts, std::vector<MPI_Aint>& out_displs,
                    std::vector<MPI_Datatype>& out_types, std::vector<TypeLayout>& layouts, bool& any) {
  const std::size_t n = peers.size();
  any = false;
  if (n > 0 && (counts == nullptr || displacements == nullptr || types == nullptr)) return false;
  out_counts.assign(counts, counts + n);
  out_displs.assign(displacements, displacements + n);
  out_types.assign(types, types + n);
  layouts.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    if (counts[j] < 0) return false;
    if (counts[j] == 0 && !kEmptyBlockTypesChecked) {
      layouts[j] = TypeLayout{0, 0, true};  // nothing to move, whatever the type
      continue;
    }
    if (j > 0 && types[j] == types[j - 1] && (counts[j - 1] > 0 || kEmptyBlockTypesChecked)) {
      layouts[j] = layouts[j - 1];  // described just before
    } else if (describe_type(types[j], layouts[j]) != MPI_SUCCESS) {
      return false;
    }
    const bool real = counts[j] > 0 && layouts[j].size > 0 && peers[j] != MPI_PROC_NULL;
    // A real block at MPI_BOTTOM with no displacement needs absolute
    // addresses in its type (the MPI reports MPI_ERR_BUFFER otherwise).
    if (real && displacements[j] == 0 && bottom_without_addresses(buf, types[j])) return false;
    any = any || real;
  }
  return true;
}

bool acceptable_per_block(const UserCall& c, const std::vector<int>& in, const std::vector<int>& out, CallArgs& args) {
  if (c.w == nullptr || c.sendbuf == MPI_IN_PLACE || c.recvbuf == MPI_IN_PLACE) return false;
  args.per_block = true;
  args.alltoall = true;
  args.sendbuf = c.sendbuf;
  args.recvbuf = c.recvbuf;
  args.sendcount = 0;
  args.sendtype = MPI_DATATYPE_NULL;
  args.recvtype = MPI_DATATYPE_NULL;
  return per_block_side(c.sendbuf, c.sendcounts, c.w->sdispls, c.w->sendtypes, out, args.sendcounts, args.sdispls,
                        args.sendtypes, args.send_layouts, args.sends) &&
         per_block_side(c.recvbuf, c.recvcounts, c.w->rdispls, c.w->recvtypes, in, args.recvcounts, args.displs,
                        args.recvtypes, args.recv_layouts, args.receives);
}

}  // namespace

const char* mpi_name(Kind kind, Mode mode) {
  static const char* const names[3][kKindCount] = {
      {"MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv",
       "MPI_Neighbor_alltoallw"},
      {"MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv",
       "MPI_Ineighbor_alltoallw"},
      {"MPI_Neighbor_allgather_init", "MPI_Neighbor_allgatherv_init", "MPI_Neighbor_alltoall_init",
       "MPI_Neighbor_alltoallv_init", "MPI_Neighbor_alltoallw_init"}};
  return names[static_cast<int>(mode)][static_cast<int>(kind)];
}

bool acceptable(const UserCall& c, const std::vector<int>& in, const std::vector<int>& out, bool any_real_out,
                CallArgs& args) {
  if (c.kind == Kind::kAlltoallw) return acceptable_per_block(c, in, out, args);
  args.per_block = false;
  const bool variable = c.variable();
  const bool alltoall = c.alltoall();
  if (c.sendbuf == MPI_IN_PLACE) return false;
  if (!side_type_ok(c.kind, c.sendtype, out.size()) || !side_type_ok(c.kind, c.recvtype, in.size())) return false;
  const bool null_never_ok = c.mpix || (c.kind == Kind::kAllgatherv && kNullAllgathervArraysChecked);
  if (variable && !side_arrays_ok(c.recvcounts, c.rdispls, in.size(), null_never_ok)) return false;
  if (c.kind == Kind::kAlltoallv && !side_arrays_ok(c.sendcounts, c.sdispls, out.size(), null_never_ok)) return false;
  if (!variable && c.recvcount < 0) return false;
  if (c.kind != Kind::kAlltoallv && c.sendcount < 0) return false;
  const std::size_t slots = in.size();
  args.sendbuf = c.sendbuf;
  args.sendcount = c.sendcount;
  args.sendtype = c.sendtype;
  args.recvbuf = c.recvbuf;
  args.recvtype = c.recvtype;
  args.alltoall = alltoall;
  args.recvcounts.resize(slots);
  args.displs.resize(slots);
  bool receives = false;
  for (std::size_t i = 0; i < slots; ++i) {
    args.recvcounts[i] = variable ? c.recvcounts[i] : c.recvcount;
    args.displs[i] = variable ? c.rdispls[i] : static_cast<MPI_Aint>(i) * c.recvcount;
    if (args.recvcounts[i] < 0) return false;
    receives = receives || (args.recvcounts[i] > 0 && in[i] != MPI_PROC_NULL);
  }
  bool sends = c.sendcount > 0 && any_real_out;
  if (alltoall) {
    const std::size_t edges = out.size();
    args.sendcounts.resize(edges);
    args.sdispls.resize(edges);
    sends = false;
    for (std::size_t j = 0; j < edges; ++j) {
      const bool v = c.kind == Kind::kAlltoallv;
      args.sendcounts[j] = v ? c.sendcounts[j] : c.sendcount;
      args.sdispls[j] = v ? c.sdispls[j] : static_cast<MPI_Aint>(j) * c.sendcount;
      if (args.sendcounts[j] < 0) return false;
      sends = sends || (args.sendcounts[j] > 0 && out[j] != MPI_PROC_NULL);
    }
  } else {
    args.sendcounts.clear();
    args.sdispls.clear();
  }
  args.receives = receives;
  args.sends = sends;
  if (receives && bottom_without_addresses(c.recvbuf, c.recvtype)) return false;
  return !(args.sends && bottom_without_addresses(c.sendbuf, c.sendtype));
}

}  // namespace nbrcoll
