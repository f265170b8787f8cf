// MPI_Init and MPI_Init_thread: the MPI's own, then nbrcoll's process-wide
// state while every world rank is here anyway: the shared communicator that
// carries every graph's messages (state/shared_comm.h) and every world
// rank's place (state/graph_setup.h). MPI_Finalize is in completion.cpp.
#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <optional>

#include "call/mpi_progress_hook.h"
#include "call/progress_thread.h"
#include "report/run_counters.h"
#include "state/agreed_settings.h"
#include "state/creation_line.h"
#include "state/graph_setup.h"
#include "state/shared_comm.h"
#include "support/config.h"
#include "support/log.h"
#include "support/mpi_identity.h"

namespace {

// This process's forwarding progress (state/agreed_settings.h): the
// thread, else the MPI's progress loop (NBRCOLL_PROGRESS=mpi, the default,
// or a thread that found no core), hooked now, before any call can be in
// flight; else calls.
nbrcoll::ForwardingProgress forwarding_progress_here() {
  using nbrcoll::ForwardingProgress;
  if (nbrcoll::progress_thread_on()) return ForwardingProgress::kThread;
  const nbrcoll::Config& c = nbrcoll::config();
  // `thread` without a thread (no core for it) still has the MPI's loop.
  if (c.progress == nbrcoll::ProgressMode::kCalls || c.disable) return ForwardingProgress::kCalls;
  if (nbrcoll::hook_mpi_progress()) return ForwardingProgress::kMpiLoop;
  // The default, where the MPI has no hook (MPICH): calls, without a word.
  if (c.progress_set && c.progress == nbrcoll::ProgressMode::kMpi) {
    nbrcoll::log(nbrcoll::LogLevel::kWarn,
                 "NBRCOLL_PROGRESS=mpi: this MPI offers no progress hook (Open MPI's opal_progress_register); calls "
                 "progress in the application's MPI calls that nbrcoll intercepts");
  }
  return ForwardingProgress::kCalls;
}

// After the MPI's own initialisation: nbrcoll's process-wide communicator,
// MPI_COMM_WORLD's creation line, every world rank's place and the
// settings every process must read alike: the late planning's and the
// least forwarding progress (shared_comm.h, creation_line.h,
// graph_setup.h, agreed_settings.h), and the run report on or off
// (report/run_counters.h). A progress thread is decided before.
void initialise() {
  int rank = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  nbrcoll::set_log_rank(rank);
  nbrcoll::open_shared_comm();
  nbrcoll::open_world_line();
  nbrcoll::gather_world_places();
  nbrcoll::agree_settings(forwarding_progress_here());
  nbrcoll::report::start();
}

// NBRCOLL_PROGRESS=thread: the MPI is asked for MPI_THREAD_MULTIPLE (the
// progress thread calls it while the application's threads may), and the
// application is told the level it asked for, or the MPI's own where that
// is lower (MPI_Query_thread answers the same: completion.cpp). Without
// MPI_THREAD_MULTIPLE the thread stays off, said once.
// The host's ranks and the CPUs this process may run on, where
// NBRCOLL_PROGRESS=thread found no core for the thread (said after
// initialisation, when the log knows the rank).
struct NoCore {
  int ranks = 0;
  int cpus = 0;
};
NoCore g_no_core;

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

bool thread_wanted() {
  const nbrcoll::Config& c = nbrcoll::config();
  if (c.disable || (c.progress != nbrcoll::ProgressMode::kThread && c.progress != nbrcoll::ProgressMode::kThreadAlways))
    return false;
  if (c.progress == nbrcoll::ProgressMode::kThreadAlways) return true;
  const int ranks = nbrcoll::launcher_local_size();
  const int cpus = usable_cpus();
  if (nbrcoll::thread_fits(ranks, cpus)) return true;
  g_no_core = {ranks, cpus};
  return false;
}

void say_no_core() {
  if (g_no_core.ranks == 0) return;
  nbrcoll::log(nbrcoll::LogLevel::kWarn,
               "NBRCOLL_PROGRESS=thread: %d ranks on this host share %d CPUs, no core for a progress thread; calls "
               "progress in the application's MPI calls (thread-always starts it anyway)",
               g_no_core.ranks, g_no_core.cpus);
}

int init_for_thread(int* argc, char*** argv, int required, int* provided) {
  int actual = MPI_THREAD_SINGLE;
  const int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &actual);
  if (rc != MPI_SUCCESS) return rc;
  const int told = std::min(required, actual);
  nbrcoll::set_told_thread_level(told);
  if (provided != nullptr) *provided = told;
  nbrcoll::set_progress_thread(actual == MPI_THREAD_MULTIPLE);
  initialise();
  if (actual != MPI_THREAD_MULTIPLE) {
    nbrcoll::log(nbrcoll::LogLevel::kWarn,
                 "NBRCOLL_PROGRESS=thread: the MPI provides thread level %d, not MPI_THREAD_MULTIPLE; calls progress "
                 "in the application's MPI calls only",
                 actual);
  }
  return rc;
}

}  // namespace

extern "C" {

// Initialisation: the MPI's own, then nbrcoll's process-wide communicator
// (shared_comm.h), while every world rank is here anyway.
int MPI_Init(int* argc, char*** argv) {
  if (thread_wanted()) return init_for_thread(argc, argv, MPI_THREAD_SINGLE, nullptr);
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    initialise();
    say_no_core();
  }
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (thread_wanted()) return init_for_thread(argc, argv, required, provided);
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    initialise();
    say_no_core();
  }
  return rc;
}

// The level the application was told where nbrcoll asked for more.
int MPI_Query_thread(int* provided) {
  if (const std::optional<int> told = nbrcoll::told_thread_level(); told && provided != nullptr) {
    *provided = *told;
    return MPI_SUCCESS;
  }
  return PMPI_Query_thread(provided);
}

}  // extern "C"
