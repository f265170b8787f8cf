// hops_from_links / packages_from_links, the rules file readers and ROCm SMI share.
#include <gtest/gtest.h>

#include "tests/unit/topo/expected.h"
#include "topo/graph.h"

namespace nbrcoll::topo {
namespace {

using topo_test::kFrontierHops;
using topo_test::kFrontierLinks;

TEST(HopsFromLinks, FrontierShortestPathsAreTheFrontierHopMatrix) {
  EXPECT_EQ(hops_from_links(8, kFrontierLinks), kFrontierHops);
  EXPECT_EQ(hops_from_links(8, topo_test::kMi250Links), topo_test::kMi250Hops);
}

TEST(HopsFromLinks, NoLinksIsFlatAndUnreachableIsOneMoreThanLongest) {
  EXPECT_EQ(hops_from_links(2, {0, 0, 0, 0}), (std::vector<int>{0, 1, 1, 0}));
  // Chain 0-1-2 plus an isolated 3: longest path 2, so 3 is 3 hops away.
  const std::vector<int> chain = {0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(hops_from_links(4, chain), (std::vector<int>{0, 1, 2, 3, 1, 0, 1, 3, 2, 1, 0, 3, 3, 3, 3, 0}));
}

TEST(HopsFromLinks, BadShapeGivesEmpty) {
  EXPECT_TRUE(hops_from_links(3, {0, 1}).empty());
  EXPECT_TRUE(hops_from_links(0, {}).empty());
}

TEST(PackagesFromLinks, Mi200PairsAreFound) {
  EXPECT_EQ(packages_from_links(8, kFrontierLinks), topo_test::kFrontierPackage);
  EXPECT_EQ(packages_from_links(8, topo_test::kMi250Links), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(packages_from_links(2, {0, 4, 4, 0}), (std::vector<int>{0, 0}));  // one MI250X
}

TEST(PackagesFromLinks, UniformOrSingleLinkNodesHaveOnePackagePerDevice) {
  const std::vector<int> k3 = {0, 2, 2, 2, 0, 2, 2, 2, 0};  // MI300A-like / Summit socket
  EXPECT_EQ(packages_from_links(3, k3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(packages_from_links(2, {0, 1, 1, 0}), (std::vector<int>{0, 1}));  // M = 1
  EXPECT_EQ(packages_from_links(2, {0, 0, 0, 0}), (std::vector<int>{0, 1}));
  EXPECT_EQ(packages_from_links(2, {0, 1}), (std::vector<int>{0, 1}));  // bad shape
}

TEST(NormalizeLabels, FirstAppearanceOrder) {
  EXPECT_EQ(normalize_labels({7, 7, 3, 9, 3}), (std::vector<int>{0, 0, 1, 2, 1}));
}

}  // namespace
}  // namespace nbrcoll::topo
