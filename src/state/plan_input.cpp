#include "state/plan_input.h"

#include <mpi.h>

#include "state/agreed_settings.h"
#include "support/config.h"
#include "support/log.h"

namespace nbrcoll {

const topo::NodeTopology& node_topology() {
  static const topo::NodeTopology topology = [] {
    topo::LoadResult r = topo::load_topology(config().topo);
    if (!r.error.empty()) {
      log(LogLevel::kWarn, "topology '%s': %s; using %s", config().topo.c_str(), r.error.c_str(),
          r.topology.source.c_str());
    }
    return r.topology;
  }();
  return topology;
}

int to_plan_rank(int mpi_rank) {
  return mpi_rank == MPI_PROC_NULL ? algos::kNoRank : mpi_rank;
}

void set_node(algos::PlanInput& input) {
  const topo::NodeTopology& topology = node_topology();
  input.node.devices = topology.devices;
  input.node.links = topology.links;
  input.node.hops = topology.hops;
  input.remote_leaders = remote_leaders();
}

}  // namespace nbrcoll
