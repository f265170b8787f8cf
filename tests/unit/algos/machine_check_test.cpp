// What a machine file says it measured (MachineOrigin: its keys, older
// files without them) and the rule that checks it against the running
// process (algos/machine_check.h).
#include "algos/machine_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "algos/testing/models.h"

namespace nbrcoll::algos::testing {
namespace {

constexpr auto kSameDevice = static_cast<std::size_t>(LinkClass::kSameDevice);
constexpr auto kSamePackage = static_cast<std::size_t>(LinkClass::kSamePackage);
constexpr auto kLinked = static_cast<std::size_t>(LinkClass::kLinked);
constexpr auto kMultiHop = static_cast<std::size_t>(LinkClass::kMultiHop);
constexpr auto kNetwork = static_cast<std::size_t>(LinkClass::kNetwork);

using Classes = std::array<bool, kLinkClassCount>;

// `ranks` ranks of one node of `model`, local rank i on device i mod devices.
Classes used_by(Model model, int ranks, bool several_nodes) {
  const NodeModel node = node_model(model);
  std::vector<RankPlace> places;
  for (int i = 0; i < ranks; ++i) {
    const int device = i % node.matrices.devices;
    places.push_back({0, device, node.package[static_cast<std::size_t>(device)]});
  }
  return classes_used(places, node.matrices, several_nodes);
}

// The calibration of the report (issue 47): 2 nodes x 8 ranks without
// NBRCOLL_TOPO (one device: every pair of a node on the same device), the
// classes it had no pair of filled from the nearest measured one.
MachineModel measured_without_topology() {
  MachineModel m = *builtin_machine("emulated");
  m.name = "calibrated";
  m.link[kNetwork] = {24, 126};
  for (const std::size_t c : {kLinked, kMultiHop}) m.link[c] = m.link[kNetwork];  // what the fill gave
  m.link[kSameDevice] = {30, 3000};
  m.link[kSamePackage] = m.link[kSameDevice];
  m.origin = {"flat", 8, 2, Classes{true, false, false, false, true}};
  return m;
}

RunShape frontier_run(int ranks_per_node) {
  return {"model:frontier", ranks_per_node, used_by(Model::kFrontier, ranks_per_node, true)};
}

TEST(MachineOrigin, RoundTripsThroughTheFileAndOlderFilesStillLoad) {
  MachineModel m = measured_without_topology();
  std::string error;
  const auto back = parse_machine(format_machine(m), MachineModel{}, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->origin, m.origin);
  EXPECT_NE(format_machine(m).find("\nmeasured = same-device network\n"), std::string::npos);
  // Without the origin's keys (a file from before them, a hand-written
  // one): it loads, and says nothing of what it measured.
  m.origin = {};
  const std::string old_file = format_machine(m);
  EXPECT_EQ(old_file.find("measured"), std::string::npos);
  EXPECT_EQ(old_file.find("topology"), std::string::npos);
  const auto old = parse_machine(old_file, *builtin_machine("frontier"), error);
  ASSERT_TRUE(old) << error;
  EXPECT_EQ(old->origin, MachineOrigin{});
  EXPECT_EQ(old->link[kLinked].alpha_us, 24);
}

TEST(MachineOrigin, KeysParseAndNameTheBadLine) {
  std::string error;
  const auto m =
      parse_machine("topology = model:frontier\nranks-per-node = 8\nnodes = 2\nmeasured = network,multi-hop\n",
                    MachineModel{}, error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->origin.topology, "model:frontier");
  EXPECT_EQ(m->origin.ranks_per_node, 8);
  EXPECT_EQ(m->origin.nodes, 2);
  EXPECT_EQ(m->origin.measured, (Classes{false, false, false, true, true}));
  const auto none = parse_machine("measured =\n", MachineModel{}, error);
  ASSERT_TRUE(none) << error;
  EXPECT_EQ(none->origin.measured, Classes{});  // said: nothing measured
  EXPECT_FALSE(parse_machine("nodes = 2\nmeasured = network xgmi\n", MachineModel{}, error));
  EXPECT_EQ(error, "line 2: unknown link class 'xgmi'");
  EXPECT_FALSE(parse_machine("ranks-per-node = 2.5\n", MachineModel{}, error));
  EXPECT_EQ(error, "line 1: '2.5' is not a positive integer");
  EXPECT_FALSE(parse_machine("nodes = 0\n", MachineModel{}, error));
  EXPECT_EQ(error, "line 1: '0' is not a positive integer");
}

TEST(MachineCheck, ClassesUsedFollowTheNodeShape) {
  // Frontier: 8 ranks on 8 GCDs use every class between GCDs, none on one.
  EXPECT_EQ(used_by(Model::kFrontier, 8, true), (Classes{false, true, true, true, true}));
  // 2 ranks: the two GCDs of one package; one node: no network.
  EXPECT_EQ(used_by(Model::kFrontier, 2, false), (Classes{false, true, false, false, false}));
  // 16 ranks on 8 GCDs share them.
  EXPECT_EQ(used_by(Model::kFrontier, 16, true), (Classes{true, true, true, true, true}));
  // Flat: every pair of GCDs multi-hop.
  EXPECT_EQ(used_by(Model::kFlat, 8, true), (Classes{false, false, false, true, true}));
}

TEST(MachineCheck, ClassesTheFileDidNotMeasureTakeTheBuiltInsValues) {
  const MachineModel file = measured_without_topology();
  const MachineModel frontier = *builtin_machine("frontier");
  const RunShape now = frontier_run(8);
  const MachineCheck check = check_machine(file, frontier, now);
  EXPECT_EQ(check.replaced, (Classes{false, true, true, true, false}));
  EXPECT_TRUE(check.topology_differs);
  EXPECT_FALSE(check.shape_differs);
  for (const std::size_t c : {kSamePackage, kLinked, kMultiHop}) {
    EXPECT_EQ(check.model.link[c].alpha_us, frontier.link[c].alpha_us) << c;
    EXPECT_EQ(check.model.link[c].bytes_per_us, frontier.link[c].bytes_per_us) << c;
  }
  // The measured classes and everything else stay the file's.
  EXPECT_EQ(check.model.link[kNetwork].alpha_us, 24);
  EXPECT_EQ(check.model.link[kSameDevice].alpha_us, 30);
  EXPECT_EQ(check.model.nic_bytes_per_us, file.nic_bytes_per_us);
  EXPECT_EQ(check.model.cores, file.cores);
  EXPECT_EQ(check.model.name, "calibrated");
  EXPECT_EQ(describe_check(check, file, "/tmp/c.machine", "frontier", now),
            "machine file /tmp/c.machine was measured on topology flat, 8 ranks per node; this process runs topology "
            "model:frontier, 8 ranks per node; the file measured no pair of same-package, xgmi-linked, multi-hop, "
            "which this process uses: those take the built-in frontier machine's values (measured: same-device, "
            "network); calibrate under this topology and node shape to measure them all");
  // Where only a package's two GCDs are used, only that class is taken.
  EXPECT_EQ(check_machine(file, frontier, frontier_run(2)).replaced, (Classes{false, true, false, false, false}));
}

TEST(MachineCheck, AFileThatMeasuredWhatTheRunUsesStandsWhole) {
  MachineModel file = measured_without_topology();
  file.origin = {"model:frontier", 8, 2, Classes{false, true, true, true, true}};
  file.floor_us = 250;
  file.burst_bytes = 262144;
  const MachineCheck same = check_machine(file, *builtin_machine("frontier"), frontier_run(8));
  EXPECT_FALSE(same.noteworthy());
  EXPECT_EQ(describe_check(same, file, "f", "frontier", frontier_run(8)), "");
  EXPECT_EQ(same.model.link[kLinked].alpha_us, 24);
  EXPECT_EQ(same.model.floor_us, 250);
  // Another node shape: said, but every class used was measured; the
  // floor (ranks waiting for a core) was the measured shape's and goes.
  const MachineCheck fewer = check_machine(file, *builtin_machine("frontier"), frontier_run(4));
  EXPECT_TRUE(fewer.shape_differs);
  EXPECT_FALSE(fewer.any_replaced());
  EXPECT_EQ(fewer.model.floor_us, 0);
  EXPECT_EQ(fewer.model.burst_bytes, 262144);  // the link's, whatever the shape
  const std::string said = describe_check(fewer, file, "f", "frontier", frontier_run(4));
  EXPECT_NE(
      said.find("every class this process uses was measured, and stands; its floor (the wait of ranks sharing cores) "
                "holds for its node shape only and is not used"),
      std::string::npos)
      << said;
}

TEST(MachineCheck, AFileThatDoesNotSayWhatItMeasuredStandsWhole) {
  MachineModel file = measured_without_topology();
  file.origin = {};
  const MachineCheck check = check_machine(file, *builtin_machine("frontier"), frontier_run(8));
  EXPECT_FALSE(check.noteworthy());
  EXPECT_EQ(check.model.link[kLinked].alpha_us, 24);
  EXPECT_EQ(check.model.link[kSamePackage].alpha_us, 30);
}

}  // namespace
}  // namespace nbrcoll::algos::testing
