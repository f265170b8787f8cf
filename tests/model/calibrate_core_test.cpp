// nbrcoll-calibrate's pure parts: pairs, nodes, fallbacks, cores, the file.
#include "bench/model/calibrate_core.h"

#include <gtest/gtest.h>

namespace nbrcalib {
namespace {

namespace algos = nbrcoll::algos;

constexpr std::uint8_t P = static_cast<std::uint8_t>(algos::LinkClass::kSamePackage);
constexpr std::uint8_t L = static_cast<std::uint8_t>(algos::LinkClass::kLinked);
constexpr std::uint8_t N = static_cast<std::uint8_t>(algos::LinkClass::kNetwork);
constexpr std::uint8_t X = kNoClass;

// 2 nodes of 2 ranks plus a node of 1: ranks 0, 1 same package; 2, 3 linked; 4 alone.
const std::vector<std::uint8_t> kClasses = {X, P, N, N, N,  //
                                            P, X, N, N, N,  //
                                            N, N, X, L, N,  //
                                            N, N, L, X, N,  //
                                            N, N, N, N, X};

TEST(CalibrateCore, NodesAndPairsFromTheClasses) {
  EXPECT_EQ(nodes_from_classes(kClasses, 5), (std::vector<int>{0, 0, 1, 1, 2}));
  const auto pairs = first_pairs(kClasses, 5);
  EXPECT_EQ(pairs[P], (std::pair<int, int>{0, 1}));
  EXPECT_EQ(pairs[L], (std::pair<int, int>{2, 3}));
  EXPECT_EQ(pairs[N], (std::pair<int, int>{0, 2}));
  EXPECT_EQ(pairs[static_cast<std::size_t>(algos::LinkClass::kSameDevice)], (std::pair<int, int>{-1, -1}));
  EXPECT_EQ(pairs[static_cast<std::size_t>(algos::LinkClass::kMultiHop)], (std::pair<int, int>{-1, -1}));
}

TEST(CalibrateCore, TheFloorsExchangeNamesTheNextAndPreviousNode) {
  // Nodes 0, 0, 1, 1, 2: index i on the next and the previous node (a node
  // of fewer ranks wraps the index).
  const auto peers = halo_peers({0, 0, 1, 1, 2});
  EXPECT_EQ(peers, (std::vector<std::vector<int>>{{2, 4}, {3, 4}, {4, 0}, {4, 1}, {0, 2}}));
  // Two nodes: the same peer both ways; one node: the neighbouring ranks.
  EXPECT_EQ(halo_peers({0, 1}), (std::vector<std::vector<int>>{{1, 1}, {0, 0}}));
  EXPECT_EQ(halo_peers({0, 0, 0}), (std::vector<std::vector<int>>{{1, 2}, {2, 0}, {0, 1}}));
  EXPECT_EQ(halo_peers({0}), (std::vector<std::vector<int>>{{}}));
  // Rank 2's load: 2 network messages each way (to 4 and 0, from 0 and 4).
  const algos::RankLoad load = exchange_load(peers, 2, kClasses, 8);
  EXPECT_EQ(load.sent_messages[N], 2u);
  EXPECT_EQ(load.recv_messages[N], 2u);
  EXPECT_EQ(load.sent_bytes[N], 16u);
  EXPECT_EQ(load.sent_messages[L], 0u);
  // On one node of 3 (kClasses' ranks 0 and 1 share a package): rank 0
  // sends to 1 and 2 and receives from them.
  const algos::RankLoad one = exchange_load(halo_peers({0, 0, 0}), 0, {X, P, P, P, X, P, P, P, X}, 8);
  EXPECT_EQ(one.sent_messages[P], 2u);
  EXPECT_EQ(one.recv_messages[P], 2u);
}

TEST(CalibrateCore, TheBurstIsWhatThePauseSaved) {
  // 1 MiB at 160 bytes/us after a pause, 120 steadily: a quarter left at once.
  EXPECT_DOUBLE_EQ(burst_bytes(1048576, 160, 120), 262144);
  // A twentieth of the probe or less is noise; a slower paused rate, none.
  EXPECT_EQ(burst_bytes(1048576, 125, 120), 0);
  EXPECT_EQ(burst_bytes(1048576, 100, 120), 0);
  EXPECT_EQ(burst_bytes(1048576, 160, 0), 0);
}

TEST(CalibrateCore, UnmeasuredClassesTakeTheNearestSlowerOnATie) {
  // Measured: same-package (1) and network (4).
  const auto s = value_sources({false, true, false, false, true});
  EXPECT_EQ(s, (std::array<int, kLinkClassCount>{1, 1, 1, 4, 4}));
  // Measured: same-device and xgmi-linked: same-package is 1 from both, takes the slower.
  EXPECT_EQ(value_sources({true, false, true, false, false}), (std::array<int, kLinkClassCount>{0, 2, 2, 2, 2}));
  EXPECT_EQ(value_sources({true, false, false, true, false}), (std::array<int, kLinkClassCount>{0, 0, 3, 3, 3}));
  EXPECT_EQ(value_sources({}), (std::array<int, kLinkClassCount>{-1, -1, -1, -1, -1}));
}

TEST(CalibrateCore, CoresPerNodeShareTheHost) {
  // One host (one boot id), 2 emulated nodes of 2 ranks, ranks unbound (both CPUs).
  const std::vector<std::vector<std::uint64_t>> both(4, {0b11});
  Cores c = cores_per_node({"boot:a", "boot:a", "boot:a", "boot:a"}, {0, 0, 1, 1}, both);
  EXPECT_EQ(c.per_node, 1.0);
  EXPECT_EQ(c.hosts, 1);
  EXPECT_EQ(c.host_cpus, 2);
  EXPECT_EQ(c.nodes_on_host, 2);
  // Two hosts, ranks bound to one CPU each: the union counts; the least host wins.
  c = cores_per_node({"boot:a", "boot:a", "boot:b", "boot:b", "boot:b"}, {0, 0, 1, 1, 1},
                     {{0b01}, {0b10}, {0b001}, {0b010}, {0b100}});
  EXPECT_EQ(c.per_node, 2.0);
  EXPECT_EQ(c.hosts, 2);
  // Three nodes on a 2-CPU host: fractional.
  c = cores_per_node({"h", "h", "h"}, {0, 1, 2}, {{0b11}, {0b11}, {0b11}});
  EXPECT_DOUBLE_EQ(c.per_node, 2.0 / 3.0);
}

TEST(CalibrateCore, Median) {
  EXPECT_EQ(median({}), 0);
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(CalibrateCore, MachineFileParsesBack) {
  algos::MachineModel m = *algos::builtin_machine("emulated");
  m.name = "here";
  m.cores = 0.5;
  const std::string text = machine_file(m, {"measured here", "network: ranks 0 and 8"});
  EXPECT_EQ(text.rfind("# measured here\n# network: ranks 0 and 8\n# nbrcoll machine model", 0), 0u) << text;
  std::string error;
  const auto back = algos::parse_machine(text, algos::MachineModel{}, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->name, "here");
  EXPECT_EQ(back->cores, 0.5);
  EXPECT_EQ(back->nic_bytes_per_us, m.nic_bytes_per_us);
}

}  // namespace
}  // namespace nbrcalib
