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

}  // namespace

const char* mpi_name(Kind kind, Mode mode) {
  static const char* const names[3][4] = {
      {"MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv"},
      {"MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv"},
      {"MPI_Neighbor_allgather_init", "MPI_Neighbor_allgatherv_init", "MPI_Neighbor_alltoall_init",
       "MPI_Neighbor_alltoallv_init"}};
  return names[static_cast<int>(mode)][static_cast<int>(kind)];
}

bool acceptable(const UserCall& c, const std::vector<int>& in, const std::vector<int>& out, bool any_real_out,
                CallArgs& args) {
  const bool variable = c.variable();
  const bool alltoall = c.alltoall();
  if (c.sendbuf == MPI_IN_PLACE || c.sendtype == MPI_DATATYPE_NULL || c.recvtype == MPI_DATATYPE_NULL) return false;
  if (variable && (c.recvcounts == nullptr || c.rdispls == nullptr)) return false;
  if (c.kind == Kind::kAlltoallv && (c.sendcounts == nullptr || c.sdispls == nullptr)) return false;
  if (!variable && c.recvcount < 0) return false;
  if (c.kind != Kind::kAlltoallv && c.sendcount < 0) return false;
  TypeLayout probe;
  if (describe_type(c.sendtype, probe) != MPI_SUCCESS || describe_type(c.recvtype, probe) != MPI_SUCCESS) return false;
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
