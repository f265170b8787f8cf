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
// The nonblocking forms have the same faults (MPI_Ineighbor_alltoall fails
// with MPI_ERR_TRUNCATE on the ranks whose sizes differ, and their partners
// wait for ever), and so may the persistent ones; they take the v form too,
// with count arrays kept for the life of the process (one per block count
// and count, a bounded number). MPICH gets all of them right; the v form
// costs it nothing, so the rule does not depend on the MPI. Alltoallw goes
// as it is.
#pragma once

#include "call/collective.h"

namespace nbrcoll {

// MPI_Neighbor_<c.kind>, MPI_Ineighbor_<c.kind> and MPI_Neighbor_<c.kind>_init
// (MPIX_Neighbor_<c.kind>_init where c.mpix) through PMPI, as described above.
int pmpi_blocking(const UserCall& c);
int pmpi_nonblocking(const UserCall& c, MPI_Request* request);
#if NBRCOLL_PERSISTENT
int pmpi_persistent(const UserCall& c, MPI_Info info, MPI_Request* request);
#endif

// In- and out-degree of any topology communicator (a Cartesian one: twice
// its dimensions); false if it has none or the query fails.
bool topology_degrees(MPI_Comm comm, int& in, int& out);

}  // namespace nbrcoll
