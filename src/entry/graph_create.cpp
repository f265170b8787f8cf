// Graph creation: the MPI's own, then nbrcoll's set-up on the communicator
// it made (state/graph_setup.h), collective over it. Either every rank
// attaches state or none does. Distributed graphs, Cartesian communicators
// (MPI_Cart_create, and MPI_Cart_sub's sub-grids) and MPI_Graph_create's
// graphs alike: the set-up reads the lists of whichever it is, and plans on
// the communicator the MPI returned, so its rank order (reorder) is the MPI's.
#include <mpi.h>

#include <atomic>
#include <memory>
#include <string>

#include "report/run_counters.h"
#include "state/comm_state.h"
#include "state/graph_setup.h"
#include "support/config.h"
#include "support/log.h"
#include "support/plan_summary.h"
#include "support/version.h"

namespace {

// NBRCOLL_DEBUG=info: one line on world rank 0 at the first graph: what
// this library is and how it is set.
void banner_once(int world_rank) {
  using namespace nbrcoll;
  static std::atomic<bool> shown{false};
  if (world_rank != 0 || shown.exchange(true)) return;
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  PMPI_Get_library_version(mpi, &length);
  std::string first_line(mpi);
  first_line = first_line.substr(0, first_line.find_first_of("\n,"));
  const Config& c = config();
  log(LogLevel::kInfo,
      "nbrcoll %s (built for %s) on %s; NBRCOLL_ALGO=%s NBRCOLL_THRESHOLD=%zu NBRCOLL_TOPO=%s "
      "NBRCOLL_RANKS_PER_NODE=%d NBRCOLL_WATCHDOG=%g",
      build_info().version, build_info().mpi, first_line.c_str(), algo_name(effective_algo()), c.threshold,
      c.topo.c_str(), c.ranks_per_node, c.watchdog);
}

// Whether the MPI's world model is up (MPI_Init and no MPI_Finalize yet).
// nbrcoll's set-up uses MPI_COMM_WORLD and MPI_COMM_SELF, which a program
// of MPI sessions alone does not have (MPICH aborts on them there): such a
// program's graphs stay the MPI's own, said once at info. The same answer
// on every rank of a graph: its processes share one MPI.
bool world_model_up() {
  int initialized = 0;
  int finalized = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  if (initialized != 0 && finalized == 0) return true;
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    nbrcoll::log(nbrcoll::LogLevel::kInfo,
                 "a graph made outside MPI_Init..MPI_Finalize (MPI sessions): its calls are the MPI's own");
  }
  return false;
}

// Build and attach our state to a graph communicator PMPI just made. All ranks
// agree on the outcome, so either every rank has state or none has (a mix
// would send some ranks to PMPI and others to our plan).
void setup(MPI_Comm graph, MPI_Comm parent) {
  using namespace nbrcoll;
  if (config().disable || graph == MPI_COMM_NULL || !world_model_up()) return;
  GraphSetup made = setup_graph(graph, parent);
  if (!made.info) return;
  if (report::on()) report::add_graph_setup(static_cast<std::uint64_t>(made.times.total.wall * 1e3));
  if (log_enabled(LogLevel::kInfo)) {
    const GraphInfo& info = *made.info;
    banner_once(info.process_of[static_cast<std::size_t>(info.rank)]);
    log_plans(info);
  }
  attach_state(graph, made.info, made.channel);
}

bool is_intercomm(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
}

// After the MPI's creation call from `old` returned `rc`: the set-up on the
// communicator it made (none from an intercommunicator, whose creation
// calls are erroneous: the MPI's answer stands).
int created(int rc, MPI_Comm old, const MPI_Comm* made) {
  if (rc == MPI_SUCCESS && !is_intercomm(old)) setup(*made, old);
  return rc;
}

}  // namespace

extern "C" {

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  return created(PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                                 destweights, info, reorder, comm_dist_graph),
                 comm_old, comm_dist_graph);
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  return created(
      PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph),
      comm_old, comm_dist_graph);
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart) {
  return created(PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart), comm_old, comm_cart);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return created(PMPI_Cart_sub(comm, remain_dims, newcomm), comm, newcomm);
}

int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* comm_graph) {
  return created(PMPI_Graph_create(comm_old, nnodes, index, edges, reorder, comm_graph), comm_old, comm_graph);
}

}  // extern "C"
