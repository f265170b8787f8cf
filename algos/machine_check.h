// Which of a machine file's values a process can trust. nbrcoll-calibrate
// records what it measured on (MachineOrigin: the node topology, ranks per
// node, the link classes a pair of ranks measured; the others it filled in
// from a neighbouring class). A process whose ranks use a class the file
// did not measure takes that class from the built-in machine named like its
// topology instead, and keeps the measured ones. Pure: every rank that reads
// the same file under the same settings reaches the same machine, without
// talking.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "algos/cost_model.h"
#include "algos/plan.h"

namespace nbrcoll::algos {

// What the running process is: its node topology's source (as
// MachineOrigin::topology), its ranks per node (0: not known) and the link
// classes its ranks use.
struct RunShape {
  std::string topology;
  int ranks_per_node = 0;
  std::array<bool, kLinkClassCount> uses{};
};

// The link classes between the ranks of one node at `node_ranks` (their
// devices and packages; `node` their node's matrices), and the network's if
// `several_nodes`.
std::array<bool, kLinkClassCount> classes_used(const std::vector<RankPlace>& node_ranks, const NodeMatrices& node,
                                               bool several_nodes);

struct MachineCheck {
  MachineModel model;                            // the machine to use
  std::array<bool, kLinkClassCount> replaced{};  // classes it takes from the built-in
  bool topology_differs = false;                 // the file was measured under another topology
  bool shape_differs = false;                    // ... or with other ranks per node
  [[nodiscard]] bool any_replaced() const;
  // Whether there is something to say (a class replaced, or another
  // topology or shape).
  [[nodiscard]] bool noteworthy() const { return any_replaced() || topology_differs || shape_differs; }
};

// The rule: `file` as parsed; where it records what it measured
// (origin.measured), every class `now` uses that it did not measure takes
// `builtin`'s values; the rest stay. A file that does not say (older files,
// hand-written ones) stays whole. A topology or ranks per node recorded and
// different from `now`'s is noted (the measured classes still stand: they
// were measured between ranks of this machine); with other ranks per node
// the file's floor (ranks waiting for a core) takes `builtin`'s.
MachineCheck check_machine(const MachineModel& file, const MachineModel& builtin, const RunShape& now);

// One line on what check_machine found (`file_label`: the file's path),
// for a warning; empty when it is not noteworthy.
std::string describe_check(const MachineCheck& check, const MachineModel& file, const std::string& file_label,
                           const std::string& builtin_name, const RunShape& now);

}  // namespace nbrcoll::algos
