#include "algos/machine_check.h"

#include <algorithm>

#include "algos/link_class.h"

namespace nbrcoll::algos {

namespace {

std::string class_names(const std::array<bool, kLinkClassCount>& classes) {
  std::string out;
  for (int c = 0; c < kLinkClassCount; ++c) {
    if (!classes[static_cast<std::size_t>(c)]) continue;
    out += (out.empty() ? "" : ", ") + std::string(link_class_name(static_cast<LinkClass>(c)));
  }
  return out;
}

std::string where(const std::string& topology, int ranks_per_node) {
  std::string out = "topology " + (topology.empty() ? std::string("(not recorded)") : topology);
  if (ranks_per_node > 0) out += ", " + std::to_string(ranks_per_node) + " ranks per node";
  return out;
}

}  // namespace

std::array<bool, kLinkClassCount> classes_used(const std::vector<RankPlace>& node_ranks, const NodeMatrices& node,
                                               bool several_nodes) {
  std::array<bool, kLinkClassCount> used{};
  std::vector<RankPlace> places = node_ranks;
  for (RankPlace& p : places) p.node = 0;
  for (std::size_t a = 0; a < places.size(); ++a) {
    for (std::size_t b = a + 1; b < places.size(); ++b)
      used[static_cast<std::size_t>(classify_link(places, node, static_cast<int>(a), static_cast<int>(b)))] = true;
  }
  used[static_cast<std::size_t>(LinkClass::kNetwork)] = several_nodes;
  return used;
}

bool MachineCheck::any_replaced() const {
  return std::find(replaced.begin(), replaced.end(), true) != replaced.end();
}

MachineCheck check_machine(const MachineModel& file, const MachineModel& builtin, const RunShape& now) {
  MachineCheck check;
  check.model = file;
  const MachineOrigin& o = file.origin;
  if (o.measured) {
    for (std::size_t c = 0; c < check.replaced.size(); ++c) {
      if (!now.uses[c] || (*o.measured)[c]) continue;
      check.model.link[c] = builtin.link[c];
      check.replaced[c] = true;
    }
  }
  check.topology_differs = !o.topology.empty() && !now.topology.empty() && o.topology != now.topology;
  check.shape_differs = o.ranks_per_node > 0 && now.ranks_per_node > 0 && o.ranks_per_node != now.ranks_per_node;
  // The floor is the wait for ranks sharing cores: it holds for the node
  // shape it was measured on only.
  if (check.shape_differs) check.model.floor_us = builtin.floor_us;
  return check;
}

std::string describe_check(const MachineCheck& check, const MachineModel& file, const std::string& file_label,
                           const std::string& builtin_name, const RunShape& now) {
  if (!check.noteworthy()) return {};
  const MachineOrigin& o = file.origin;
  std::string out = "machine file " + file_label + " was measured on " + where(o.topology, o.ranks_per_node) +
                    "; this process runs " + where(now.topology, now.ranks_per_node);
  if (check.any_replaced()) {
    out += "; the file measured no pair of " + class_names(check.replaced) +
           ", which this process uses: those take the built-in " + builtin_name + " machine's values";
  } else {
    out += "; every class this process uses was measured, and stands";
  }
  if (check.shape_differs && file.floor_us != check.model.floor_us)
    out += "; its floor (the wait of ranks sharing cores) holds for its node shape only and is not used";
  if (o.measured && std::find(o.measured->begin(), o.measured->end(), true) != o.measured->end())
    out += " (measured: " + class_names(*o.measured) + ")";
  return out + "; calibrate under this topology and node shape to measure them all";
}

}  // namespace nbrcoll::algos
