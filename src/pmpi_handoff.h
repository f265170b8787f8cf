// Blocking neighbourhood calls that nbrcoll hands to the MPI as they are,
// except where Open MPI 4.1.4 gets a valid call wrong; those go as the
// equivalent v call, which it gets right:
// - MPI_Neighbor_allgather returns at once, moving nothing, when sendcount
//   or recvcount is 0 (ompi/mpi/c/neighbor_allgather.c: "everyone had to
//   give the same signature"). On a graph a rank with no in-neighbours may
//   pass recvcount 0 and still have a block to send: its out-neighbours then
//   wait for ever; a rank that sends 0 bytes misses what it receives.
// - MPI_Neighbor_alltoall fails with MPI_ERR_TRUNCATE when a rank's send
//   and receive sizes differ, which a graph allows (sizes only have to agree
//   along each edge), and returns at once when both are 0.
// MPICH gets both right; the v form costs it nothing, so the rule does not
// depend on the MPI. The nonblocking forms are handed over unchanged: their
// count arrays would have to outlive the call.
#pragma once

#include "collective.h"

namespace nbrcoll {

// MPI_Neighbor_<c.kind> through PMPI, as described above.
int pmpi_blocking(const UserCall& c);

}  // namespace nbrcoll
