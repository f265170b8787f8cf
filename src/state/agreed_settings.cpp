#include "state/agreed_settings.h"

#include <mpi.h>

#include "algos/cost_model.h"
#include "state/cost_tables.h"
#include "state/shared_comm.h"
#include "support/config.h"

namespace nbrcoll {

namespace {

// Written once in MPI_Init, before any graph exists; read by every creation
// and call.
int g_linear_calls = 0;
ForwardingProgress g_progress = ForwardingProgress::kCalls;
int g_remote_leaders = 0;

}  // namespace

void agree_settings(ForwardingProgress progress_here) {
  const MPI_Comm shared = shared_comm();
  if (shared == MPI_COMM_NULL) return;
  int least[3] = {config().short_graph_calls, static_cast<int>(progress_here),
                  algos::remote_leaders_for(machine_model())};
  if (PMPI_Allreduce(MPI_IN_PLACE, least, 3, MPI_INT, MPI_MIN, shared) != MPI_SUCCESS) return;
  g_linear_calls = least[0];
  g_progress = static_cast<ForwardingProgress>(least[1]);
  g_remote_leaders = least[2];
}

int linear_calls_before_plans() {
  return g_linear_calls;
}

ForwardingProgress forwarding_progress_everywhere() {
  return g_progress;
}

int remote_leaders() {
  return g_remote_leaders;
}

}  // namespace nbrcoll
