// The MPI entry points of graph creation and the neighborhood collectives.
// Each is thin: graph creation is PMPI plus our setup; the collectives go to
// collective.cpp (the completion calls are in completion.cpp). Whatever nbrcoll
// does not take goes to the PMPI_ call untouched.
#include <mpi.h>

#include <atomic>
#include <memory>
#include <string>

#include "call/collective.h"
#include "state/comm_state.h"
#include "support/config.h"
#include "state/cost_tables.h"
#include "state/graph_setup.h"
#include "support/log.h"
#include "support/plan_summary.h"
#include "state/shared_comm.h"
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

// Build and attach our state to a graph communicator PMPI just made. All ranks
// agree on the outcome, so either every rank has state or none has (a mix
// would send some ranks to PMPI and others to our plan).
void setup(MPI_Comm graph) {
  using namespace nbrcoll;
  if (config().disable || graph == MPI_COMM_NULL) return;
  GraphSetup made = setup_graph(graph);
  if (!made.info) return;
  if (log_enabled(LogLevel::kInfo)) {
    const GraphInfo& info = *made.info;
    banner_once(info.process_of[static_cast<std::size_t>(info.rank)]);
    log(LogLevel::kInfo, "%s", summarize_plans(info).c_str());
    if (info.rank == 0) {
      log(LogLevel::kInfo, "auto on this graph (machine %s): allgather %s; alltoall %s", machine_model().name.c_str(),
          info.gather_costs.describe().c_str(), info.alltoall_costs.describe().c_str());
    }
  }
  attach_state(graph, made.info, made.channel);
}

// After the MPI's own initialisation: nbrcoll's process-wide communicator and
// every world rank's place (shared_comm.h, graph_setup.h).
void initialise() {
  nbrcoll::open_shared_comm();
  nbrcoll::gather_world_places();
}

bool is_intercomm(MPI_Comm comm) {
  int inter = 0;
  return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
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

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  const int rc = PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree, destinations,
                                                 destweights, info, reorder, comm_dist_graph);
  if (rc == MPI_SUCCESS && !is_intercomm(comm_old)) setup(*comm_dist_graph);
  return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  const int rc =
      PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph);
  if (rc == MPI_SUCCESS && !is_intercomm(comm_old)) setup(*comm_dist_graph);
  return rc;
}

// Arguments a kind does not have stay null (see UserCall).
int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective({Kind::kAllgather, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                       recvcount, nullptr, nullptr, recvtype, comm});
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective({Kind::kAllgatherv, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, 0,
                                       recvcounts, displs, recvtype, comm});
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective({Kind::kAlltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                       recvcount, nullptr, nullptr, recvtype, comm});
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective(
      {Kind::kAlltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm});
}

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective({Kind::kAllgather, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                        recvcount, nullptr, nullptr, recvtype, comm},
                                       request);
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective({Kind::kAllgatherv, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf, 0,
                                        recvcounts, displs, recvtype, comm},
                                       request);
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective({Kind::kAlltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                        recvcount, nullptr, nullptr, recvtype, comm},
                                       request);
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::ineighbor_collective(
      {Kind::kAlltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm},
      request);
}

#if MPI_VERSION >= 4
int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init({Kind::kAllgather, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                            recvcount, nullptr, nullptr, recvtype, comm},
                                           info, request);
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init({Kind::kAllgatherv, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                            0, recvcounts, displs, recvtype, comm},
                                           info, request);
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init({Kind::kAlltoall, sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                                            recvcount, nullptr, nullptr, recvtype, comm},
                                           info, request);
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  using nbrcoll::Kind;
  return nbrcoll::neighbor_collective_init(
      {Kind::kAlltoallv, sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0, recvcounts, rdispls, recvtype, comm},
      info, request);
}
#endif

}  // extern "C"
