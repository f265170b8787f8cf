// NBRCOLL_PROGRESS=mpi: nbrcoll's calls in flight advance inside the MPI's
// own progress loop, so inside every MPI call the application makes that
// waits or tests (MPI_Recv, MPI_Allreduce, MPI_Probe, MPI_Wait on its own
// requests, ...), not only inside the calls nbrcoll intercepts. A rank
// that forwards (a leader's second hop, an aggregated bundle) and blocks
// in such a call then forwards meanwhile: without it, a peer waiting for
// that forward and the rank waiting for that peer would wait for each
// other forever.
//
// Open MPI 4.1 lets a library add a function to that loop
// (opal_progress_register in libopen-pal, looked up at run time, so the
// library links and loads under any MPI); MPICH 4.0 exports no such hook.
// docs/DESIGN.md, "Progress between start and completion".
#pragma once

namespace nbrcoll {

// Adds nbrcoll's progress to the MPI's progress loop; false where the MPI
// has no hook for it. After MPI_Init.
bool hook_mpi_progress();

// Takes it out again (MPI_Finalize, before the MPI's own finalisation).
void unhook_mpi_progress();

}  // namespace nbrcoll
