// The bodies of the neighborhood collectives nbrcoll takes, one per mode:
// decide (decide.h), then run the call (now, through the progress engine,
// or at every MPI_Start) or hand it to PMPI.
#pragma once

#include <mpi.h>

#include "call/user_call.h"
#include "support/persistent_forms.h"

namespace nbrcoll {

// MPI_Neighbor_<kind>.
int neighbor_collective(const UserCall& call);
// MPI_Ineighbor_<kind>.
int ineighbor_collective(const UserCall& call, MPI_Request* request);
#if NBRCOLL_PERSISTENT
// MPI_Neighbor_<kind>_init (MPI 4) or MPIX_Neighbor_<kind>_init (Open MPI's
// extension, c.mpix): started by MPI_Start (persistent.h).
int neighbor_collective_init(const UserCall& call, MPI_Info info, MPI_Request* request);
#endif

}  // namespace nbrcoll
