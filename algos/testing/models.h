// Built-in node models for the planner's tests and benchmarks, taken from
// topo/'s models (this test-support library may use topo/; the planner in
// nbrcoll_algos never does).
#pragma once

#include <string>
#include <vector>

#include "algos/plan.h"

namespace nbrcoll::algos::testing {

enum class Model {
  kFrontier,  // 4 x MI250X, 8 GCDs, packages {0,1} {2,3} {4,5} {6,7}
  kMi250,     // 4 x MI250 OAM (the paper's "Cluster A" numbering)
  kMi300x,    // 8 GPUs fully linked (1 link, 1 hop), each its own package
  kFlat,      // 8 devices, no links, 1 hop, each its own package
};
inline constexpr Model kAllModels[] = {Model::kFrontier, Model::kMi250, Model::kMi300x, Model::kFlat};

struct NodeModel {
  std::string name;
  NodeMatrices matrices;
  std::vector<int> package;  // package of each device
};

NodeModel node_model(Model model);

}  // namespace nbrcoll::algos::testing
