// Built-in node models (NBRCOLL_TOPO=frontier, mi250, ...): real nodes we
// know the wiring of, for emulation and tests on machines without GPUs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topo/node_topology.h"

namespace nbrcoll::topo {

// The model called `name` (case-insensitive), or nullopt. source = "model:<name>".
std::optional<NodeTopology> builtin_model(std::string_view name);

// Every model name, in a fixed order.
std::vector<std::string> model_names();

}  // namespace nbrcoll::topo
