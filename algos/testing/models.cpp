#include "algos/testing/models.h"

#include "topo/models.h"
#include "topo/node_topology.h"

namespace nbrcoll::algos::testing {

namespace {

const char* model_name(Model model) {
  switch (model) {
    case Model::kFrontier:
      return "frontier";
    case Model::kMi250:
      return "mi250";
    case Model::kMi300x:
      return "mi300x";
    case Model::kFlat:
      return "flat";
  }
  return "?";
}

}  // namespace

NodeModel node_model(Model model) {
  // The matrices come from topo/ (one source of truth); the planner itself never sees topo.
  const std::string name = model_name(model);
  const topo::NodeTopology t = model == Model::kFlat ? topo::flat_topology(8) : topo::builtin_model(name).value();
  return {name, NodeMatrices{t.devices, t.links, t.hops}, t.package};
}

}  // namespace nbrcoll::algos::testing
