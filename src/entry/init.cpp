// MPI_Init and MPI_Init_thread: the MPI's own, then nbrcoll's process-wide
// state while every world rank is here anyway: the shared communicator that
// carries every graph's messages (state/shared_comm.h) and every world
// rank's place (state/graph_setup.h). MPI_Finalize is in completion.cpp.
#include <mpi.h>

#include "report/run_counters.h"
#include "state/creation_line.h"
#include "state/graph_setup.h"
#include "state/late_plans.h"
#include "state/shared_comm.h"
#include "support/log.h"

namespace {

// After the MPI's own initialisation: nbrcoll's process-wide communicator,
// MPI_COMM_WORLD's creation line, every world rank's place and the late
// planning's setting (shared_comm.h, creation_line.h, graph_setup.h,
// late_plans.h), and the run report on or off (report/run_counters.h).
void initialise() {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  nbrcoll::set_log_rank(rank);
  nbrcoll::open_shared_comm();
  nbrcoll::open_world_line();
  nbrcoll::gather_world_places();
  nbrcoll::agree_late_planning();
  nbrcoll::report::start();
}

}  // namespace

extern "C" {

// Initialisation: the MPI's own, then nbrcoll's process-wide communicator
// (shared_comm.h), while every world rank is here anyway.
int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) initialise();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) initialise();
  return rc;
}

}  // extern "C"
