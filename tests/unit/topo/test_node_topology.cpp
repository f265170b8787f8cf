// The model itself: flat_topology, peers, validation, JSON.
#include <gtest/gtest.h>

#include "topo/json.h"
#include "topo/models.h"
#include "topo/node_topology.h"
#include "topo/validate.h"

namespace nbrcoll::topo {
namespace {

TEST(FlatTopology, EveryDeviceAloneOneHopNoLinks) {
  const NodeTopology t = flat_topology(3);
  EXPECT_EQ(t.devices, 3);
  EXPECT_EQ(t.links, std::vector<int>(9, 0));
  EXPECT_EQ(t.hops, (std::vector<int>{0, 1, 1, 1, 0, 1, 1, 1, 0}));
  EXPECT_EQ(t.package, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(t.numa, (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(t.source, "flat");
  EXPECT_EQ(validate_topology(t), "");
}

TEST(FlatTopology, NonPositiveCountGivesOneDevice) {
  EXPECT_EQ(flat_topology(0).devices, 1);
  EXPECT_EQ(flat_topology(-5).devices, 1);
}

TEST(Peers, SamePackageOnlyAndOutOfRangeIsEmpty) {
  const NodeTopology t = *builtin_model("frontier");
  EXPECT_EQ(peers(t, 0), std::vector<int>{1});
  EXPECT_EQ(peers(t, 7), std::vector<int>{6});
  EXPECT_TRUE(peers(t, 8).empty());
  EXPECT_TRUE(peers(t, -1).empty());
  EXPECT_TRUE(peers(flat_topology(4), 2).empty());
  NodeTopology three = flat_topology(3);
  three.package = {0, 0, 0};
  EXPECT_EQ(peers(three, 1), (std::vector<int>{0, 2}));
}

TEST(Accessors, LinkAndHopCount) {
  const NodeTopology t = *builtin_model("frontier");
  EXPECT_EQ(link_count(t, 0, 6), 2);
  EXPECT_EQ(hop_count(t, 0, 3), 2);
}

TEST(Validate, NamesTheAsymmetricEntry) {
  NodeTopology t = flat_topology(6);
  t.links[2 * 6 + 5] = 3;
  t.links[5 * 6 + 2] = 1;
  EXPECT_EQ(validate_topology(t), "links[2][5]=3 but links[5][2]=1");
  EXPECT_EQ(validate_topology(t, /*require_symmetric=*/false), "");
}

TEST(Validate, DiagonalNegativeAndZeroHops) {
  NodeTopology t = flat_topology(3);
  t.links[4] = 2;
  EXPECT_EQ(validate_topology(t), "links[1][1]=2 but the diagonal must be 0");
  t = flat_topology(3);
  t.links[1] = t.links[3] = -1;
  EXPECT_EQ(validate_topology(t), "links[0][1]=-1 but entries off the diagonal must be >= 0");
  t = flat_topology(3);
  t.hops[2] = t.hops[6] = 0;
  EXPECT_EQ(validate_topology(t), "hops[0][2]=0 but entries off the diagonal must be >= 1");
  t = flat_topology(3);
  t.hops[1] = 2;
  EXPECT_EQ(validate_topology(t), "hops[0][1]=2 but hops[1][0]=1");
}

TEST(Validate, ShapesPackagesNuma) {
  NodeTopology t = flat_topology(3);
  t.links.pop_back();
  EXPECT_EQ(validate_topology(t), "links has 8 entries, expected 3x3");
  t = flat_topology(3);
  t.package = {0, 1};
  EXPECT_EQ(validate_topology(t), "package has 2 entries, expected 3");
  t.package = {0, 3, 1};
  EXPECT_EQ(validate_topology(t), "package[1]=3 but it must be in [0, 2]");
  t.package = {0, -1, 1};
  EXPECT_NE(validate_topology(t).find("package[1]=-1"), std::string::npos);
  t = flat_topology(3);
  t.numa = {0, -2, 0};
  EXPECT_EQ(validate_topology(t), "numa[1]=-2 but it must be >= -1");
  t.devices = 0;
  EXPECT_NE(validate_topology(t).find("devices=0"), std::string::npos);
  NodeTopology empty;
  EXPECT_NE(validate_topology(empty), "");
}

TEST(Json, ExactShape) {
  NodeTopology t = flat_topology(2);
  t.links = {0, 3, 3, 0};
  t.numa = {1, -1};
  t.source = "a \"q\"\\\n";
  EXPECT_EQ(to_json(t),
            "{\"devices\":2,\"source\":\"a \\\"q\\\"\\\\\\u000a\",\"package\":[0,1],\"numa\":[1,-1],"
            "\"links\":[[0,3],[3,0]],\"hops\":[[0,1],[1,0]]}");
}

TEST(Json, BrokenTopologyDoesNotCrash) {
  NodeTopology t;
  t.devices = 3;  // but no matrices
  EXPECT_EQ(to_json(t), "{\"devices\":3,\"source\":\"\",\"package\":[],\"numa\":[],\"links\":[],\"hops\":[]}");
}

}  // namespace
}  // namespace nbrcoll::topo
