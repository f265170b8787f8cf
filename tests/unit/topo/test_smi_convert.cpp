// ROCm SMI -> NodeTopology through the SmiSource seam, fed what a real node reports.
#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/topo/expected.h"
#include "topo/smi_convert.h"

namespace nbrcoll::topo {
namespace {

// Answers like ROCm SMI on a node with the given T_l / T_h: link_type says
// xGMI with hops = 1 for every pair (the trap), weight = 15 * T_h, bandwidth
// max = 50000 * T_l, min = 50000 for direct peers and 0 / 0 otherwise.
class FakeSmi : public SmiSource {
 public:
  FakeSmi(int n, std::vector<int> links, std::vector<int> hops)
      : n_(n), links_(std::move(links)), hops_(std::move(hops)) {}

  int num_devices() const override { return n_; }
  SmiStatus link_type(int s, int d, std::uint64_t& hops, SmiLinkType& type) const override {
    hops = 1;
    type = type_of ? type_of(s, d) : SmiLinkType::xgmi;
    return SmiStatus::ok;
  }
  SmiStatus link_weight(int s, int d, std::uint64_t& w) const override {
    if (!weights) return SmiStatus::not_supported;
    w = 15u * static_cast<std::uint64_t>(at(hops_, s, d));
    return SmiStatus::ok;
  }
  SmiStatus minmax_bandwidth(int s, int d, std::uint64_t& lo, std::uint64_t& hi) const override {
    if (bandwidth != SmiStatus::ok) return bandwidth;
    const int l = at(links_, s, d);
    lo = l > 0 ? 50000u : 0u;
    hi = 50000u * static_cast<std::uint64_t>(l);
    return SmiStatus::ok;
  }
  SmiStatus pci_id(int dev, std::uint64_t& id) const override {
    id = static_cast<std::uint64_t>(dev) << 8;
    return SmiStatus::ok;
  }
  SmiStatus numa_node(int dev, int& numa) const override {
    if (numa_.empty()) return SmiStatus::not_supported;
    numa = numa_[static_cast<std::size_t>(dev)];
    return SmiStatus::ok;
  }

  bool weights = true;
  SmiStatus bandwidth = SmiStatus::ok;
  std::function<SmiLinkType(int, int)> type_of;
  std::vector<int> numa_;

 private:
  int at(const std::vector<int>& m, int s, int d) const { return m[static_cast<std::size_t>(s * n_ + d)]; }
  int n_;
  std::vector<int> links_, hops_;
};

TEST(SmiConvert, FrontierValuesGiveTheFrontierMatrices) {
  FakeSmi smi(8, topo_test::kFrontierLinks, topo_test::kFrontierHops);
  smi.numa_ = topo_test::kFrontierNuma;
  const LoadResult r = topology_from_smi(smi);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.links, topo_test::kFrontierLinks);
  EXPECT_EQ(r.topology.hops, topo_test::kFrontierHops);  // not link_type's all-ones
  EXPECT_EQ(r.topology.package, topo_test::kFrontierPackage);
  EXPECT_EQ(r.topology.numa, topo_test::kFrontierNuma);
  EXPECT_EQ(r.topology.source, "rocm-smi");
}

TEST(SmiConvert, Mi250Values) {
  FakeSmi smi(8, topo_test::kMi250Links, topo_test::kMi250Hops);
  const LoadResult r = topology_from_smi(smi);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.links, topo_test::kMi250Links);
  EXPECT_EQ(r.topology.hops, topo_test::kMi250Hops);
  EXPECT_EQ(r.topology.numa, std::vector<int>(8, -1));
}

TEST(SmiConvert, BandwidthNotSupportedMeansOneLinkForOneHopPairs) {
  // MI100 hive: 4 GPUs, all one hop, no bandwidth query.
  const std::vector<int> hops = {0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0};
  FakeSmi smi(4, std::vector<int>(16, 0), hops);
  smi.bandwidth = SmiStatus::not_supported;
  const LoadResult r = topology_from_smi(smi);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.links, (std::vector<int>{0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0}));
  EXPECT_EQ(r.topology.hops, hops);
  EXPECT_EQ(r.topology.package, (std::vector<int>{0, 1, 2, 3}));

  // Frontier without the bandwidth query: two-hop pairs keep 0 links.
  FakeSmi f(8, topo_test::kFrontierLinks, topo_test::kFrontierHops);
  f.bandwidth = SmiStatus::error;
  const LoadResult rf = topology_from_smi(f);
  ASSERT_EQ(rf.error, "");
  EXPECT_EQ(rf.topology.hops, topo_test::kFrontierHops);
  for (std::size_t k = 0; k < 64; ++k) EXPECT_EQ(rf.topology.links[k] > 0, topo_test::kFrontierLinks[k] > 0);
}

TEST(SmiConvert, NoWeightsTakeHopsFromTheLinkGraph) {
  FakeSmi smi(8, topo_test::kFrontierLinks, topo_test::kFrontierHops);
  smi.weights = false;
  const LoadResult r = topology_from_smi(smi);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.hops, topo_test::kFrontierHops);
}

TEST(SmiConvert, PciePairsAreOneHopMoreThanTheLongestXgmiPath) {
  // Two hives {0,1} and {2,3} joined only by PCIe.
  const std::vector<int> links = {0, 4, 0, 0, 4, 0, 0, 0, 0, 0, 0, 4, 0, 0, 4, 0};
  const std::vector<int> hops = {0, 1, 9, 9, 1, 0, 9, 9, 9, 9, 0, 1, 9, 9, 1, 0};
  FakeSmi smi(4, links, hops);
  smi.type_of = [](int s, int d) { return (s / 2 == d / 2) ? SmiLinkType::xgmi : SmiLinkType::pcie; };
  const LoadResult r = topology_from_smi(smi);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.links, links);
  EXPECT_EQ(r.topology.hops, (std::vector<int>{0, 1, 2, 2, 1, 0, 2, 2, 2, 2, 0, 1, 2, 2, 1, 0}));
  EXPECT_EQ(r.topology.package, (std::vector<int>{0, 0, 1, 1}));

  FakeSmi pcie(3, std::vector<int>(9, 0), std::vector<int>(9, 1));
  pcie.type_of = [](int, int) { return SmiLinkType::pcie; };
  const LoadResult rp = topology_from_smi(pcie);
  ASSERT_EQ(rp.error, "");
  EXPECT_EQ(rp.topology.hops, (std::vector<int>{0, 1, 1, 1, 0, 1, 1, 1, 0}));
}

TEST(SmiConvert, PartitionWeightThirteenIsOneHop) {
  struct W : FakeSmi {
    using FakeSmi::FakeSmi;
    SmiStatus link_weight(int, int, std::uint64_t& w) const override {
      w = 13;
      return SmiStatus::ok;
    }
  } w13(2, {0, 1, 1, 0}, {0, 1, 1, 0});
  const LoadResult r = topology_from_smi(w13);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.hops, (std::vector<int>{0, 1, 1, 0}));
}

TEST(SmiConvert, ErrorsFallBackToFlat) {
  FakeSmi none(0, {}, {});
  EXPECT_EQ(topology_from_smi(none).error, "ROCm SMI reports no GPUs");
  EXPECT_EQ(topology_from_smi(none).topology.devices, 1);
  FakeSmi asym(2, {0, 2, 1, 0}, {0, 1, 1, 0});
  EXPECT_EQ(topology_from_smi(asym).error, "ROCm SMI: links[0][1]=2 but links[1][0]=1");
}

TEST(MapHipToSmi, ByPciBusIdIgnoringVisibleDevices) {
  auto smi_id = [](std::uint64_t bus) { return bus << 8; };
  // SMI sees all 8 Frontier GCDs; HIP_VISIBLE_DEVICES=6,1 shows two.
  const std::vector<std::uint64_t> smi = {smi_id(0xc1), smi_id(0xc6), smi_id(0xc9), smi_id(0xce),
                                          smi_id(0xd1), smi_id(0xd6), smi_id(0xd9), smi_id(0xde)};
  EXPECT_EQ(map_hip_to_smi({"0000:d9:00.0", "0000:C6:00.0"}, smi), (std::vector<int>{6, 1}));
  EXPECT_EQ(map_hip_to_smi({"0000:aa:00.0", "garbage"}, smi), (std::vector<int>{-1, -1}));
  // Partitions: several SMI devices at one address (partition bits 28..31 differ).
  const std::vector<std::uint64_t> parts = {smi_id(0x11) | (0u << 28), smi_id(0x11) | (1u << 28)};
  EXPECT_EQ(map_hip_to_smi({"0000:11:00.0", "0000:11:00.0", "0000:11:00.0"}, parts), (std::vector<int>{0, 1, -1}));
  EXPECT_TRUE(map_hip_to_smi({}, smi).empty());
}

}  // namespace
}  // namespace nbrcoll::topo
