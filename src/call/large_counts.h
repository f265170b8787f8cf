// MPI 4's large-count forms of the calls nbrcoll takes (MPI_Neighbor_allgather_c,
// MPI_Ineighbor_alltoallv_c, MPI_Neighbor_alltoall_init_c, ...): MPI_Count
// counts and MPI_Aint displacements. nbrcoll takes such a call where every
// count and displacement fits the int the call layer takes (narrow(): an
// ordinary UserCall with int arrays, decided and run as the int form would
// be), and hands the rest to the MPI's own _c call with the arguments as
// given (pmpi_large()), which is then what runs without nbrcoll.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "call/user_call.h"

namespace nbrcoll {

// The int form of a large-count call, with the arrays it points into.
struct NarrowedCall {
  UserCall call;
  std::vector<int> sendcounts;
  std::vector<int> sdispls;
  std::vector<int> recvcounts;
  std::vector<int> rdispls;
};

// `c` (c.large set) as its int form on a communicator of these degrees into
// `out`; false when a count or displacement does not fit an int. Null
// arrays stay null (the argument check then hands the call to the MPI).
bool narrow(const UserCall& c, std::size_t in_degree, std::size_t out_degree, NarrowedCall& out);

#if MPI_VERSION >= 4
// The MPI's own _c call of c.kind in `mode`, with c.large's arguments.
int pmpi_large(const UserCall& c, Mode mode, MPI_Info info, MPI_Request* request);
#endif

}  // namespace nbrcoll
