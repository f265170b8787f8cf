// The arguments of a call nbrcoll takes, in one form for every kind, and
// the check that it can take them: anything else is an argument error the
// MPI itself detects on this rank before it communicates, so such a call
// goes to PMPI, which reports it exactly as it would without nbrcoll (error
// class and error handler included).
#pragma once

#include <mpi.h>

#include <vector>

#include "call/datatype.h"
#include "call/user_call.h"

namespace nbrcoll {

struct CallArgs {
  const void* sendbuf = nullptr;
  int sendcount = 0;  // allgather: the one block sent to every out-neighbour
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  // Alltoall: one block per out-list entry (displacements in units of the
  // sendtype extent, alltoallw: in bytes); empty for allgather.
  bool alltoall = false;
  std::vector<int> sendcounts;
  std::vector<MPI_Aint> sdispls;
  void* recvbuf = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  std::vector<int> recvcounts;   // one per in-list slot
  std::vector<MPI_Aint> displs;  // one per slot, in units of the recvtype extent (alltoallw: bytes)
  bool sends = false;            // a block goes to some real neighbour
  bool receives = false;         // some slot gets a block from a real neighbour
  // Alltoallw: a datatype per send block and per receive slot, each
  // described, and the displacements above in bytes. The other kinds leave
  // these alone: their one sendtype and recvtype serve every block.
  bool per_block = false;
  std::vector<MPI_Datatype> sendtypes;
  std::vector<TypeLayout> send_layouts;
  std::vector<MPI_Datatype> recvtypes;
  std::vector<TypeLayout> recv_layouts;
};

// Fills `args` from `c` on a graph with these in- and out-lists; false when
// the call must go to PMPI as it is.
bool acceptable(const UserCall& c, const std::vector<int>& in, const std::vector<int>& out, bool any_real_out,
                CallArgs& args);

}  // namespace nbrcoll
