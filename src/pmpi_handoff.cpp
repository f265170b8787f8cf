#include "pmpi_handoff.h"

#include <climits>
#include <cstdint>
#include <vector>

namespace nbrcoll {

namespace {

// In- and out-degree of any topology communicator; false if it has none.
bool degrees(MPI_Comm comm, int& in, int& out) {
  int topo = MPI_UNDEFINED;
  if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return false;
  if (topo == MPI_DIST_GRAPH) {
    int weighted = 0;
    return PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) == MPI_SUCCESS;
  }
  int rank = 0;
  if (topo == MPI_GRAPH) {
    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Graph_neighbors_count(comm, rank, &in) != MPI_SUCCESS)
      return false;
    out = in;
    return true;
  }
  if (topo == MPI_CART) {
    if (PMPI_Cartdim_get(comm, &in) != MPI_SUCCESS) return false;
    in *= 2;
    out = in;
    return true;
  }
  return false;
}

std::int64_t bytes(int count, MPI_Datatype type) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::int64_t>(count) * size;
}

// `n` blocks of `count` elements, one after the other (the layout of the
// non-v call); false when a displacement does not fit an int. At least one
// entry each, so that no array is null.
bool uniform_blocks(int n, int count, std::vector<int>& counts, std::vector<int>& displs) {
  if (n > 1 && count > 0 && static_cast<long long>(n - 1) * count > INT_MAX) return false;
  counts.assign(static_cast<std::size_t>(n > 0 ? n : 1), count);
  displs.resize(counts.size());
  for (std::size_t i = 0; i < displs.size(); ++i) displs[i] = static_cast<int>(i) * count;
  return true;
}

// Counts and types the MPI's own argument checks would pass (the rest goes
// to it unchanged, to be reported as it would be).
bool plain_arguments(const UserCall& c) {
  return c.sendcount >= 0 && c.recvcount >= 0 && c.sendtype != MPI_DATATYPE_NULL && c.recvtype != MPI_DATATYPE_NULL &&
         c.sendbuf != MPI_IN_PLACE && c.recvbuf != MPI_IN_PLACE;
}

}  // namespace

int pmpi_blocking(const UserCall& c) {
  int in = 0;
  int out = 0;
  std::vector<int> rcounts;
  std::vector<int> rdispls;
  std::vector<int> scounts;
  std::vector<int> sdispls;
  switch (c.kind) {
    case Kind::kAllgather:
      if (plain_arguments(c) && (c.sendcount == 0 || c.recvcount == 0) && degrees(c.comm, in, out) &&
          uniform_blocks(in, c.recvcount, rcounts, rdispls))
        return PMPI_Neighbor_allgatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, rcounts.data(), rdispls.data(),
                                        c.recvtype, c.comm);
      return PMPI_Neighbor_allgather(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm);
    case Kind::kAllgatherv:
      return PMPI_Neighbor_allgatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcounts, c.rdispls,
                                      c.recvtype, c.comm);
    case Kind::kAlltoall:
      if (plain_arguments(c)) {
        const std::int64_t send = bytes(c.sendcount, c.sendtype);
        if ((send != bytes(c.recvcount, c.recvtype) || send == 0) && degrees(c.comm, in, out) &&
            uniform_blocks(in, c.recvcount, rcounts, rdispls) && uniform_blocks(out, c.sendcount, scounts, sdispls))
          return PMPI_Neighbor_alltoallv(c.sendbuf, scounts.data(), sdispls.data(), c.sendtype, c.recvbuf,
                                         rcounts.data(), rdispls.data(), c.recvtype, c.comm);
      }
      return PMPI_Neighbor_alltoall(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm);
    case Kind::kAlltoallv:
      return PMPI_Neighbor_alltoallv(c.sendbuf, c.sendcounts, c.sdispls, c.sendtype, c.recvbuf, c.recvcounts, c.rdispls,
                                     c.recvtype, c.comm);
  }
  return MPI_ERR_INTERN;
}

}  // namespace nbrcoll
