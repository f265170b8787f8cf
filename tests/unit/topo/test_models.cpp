// Built-in models against shared/data/topologies.md and the paper's statements.
#include <gtest/gtest.h>

#include "tests/unit/topo/expected.h"
#include "topo/graph.h"
#include "topo/models.h"
#include "topo/validate.h"

namespace nbrcoll::topo {
namespace {

TEST(Models, AllValidAndNamed) {
  for (const std::string& name : model_names()) {
    const auto t = builtin_model(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(validate_topology(*t), "") << name;
    EXPECT_EQ(t->source, "model:" + name);
  }
  EXPECT_FALSE(builtin_model("nope").has_value());
  EXPECT_TRUE(builtin_model("FRONTIER").has_value());
}

TEST(Models, FrontierExact) {
  const NodeTopology t = *builtin_model("frontier");
  EXPECT_EQ(t.devices, 8);
  EXPECT_EQ(t.links, topo_test::kFrontierLinks);
  EXPECT_EQ(t.hops, topo_test::kFrontierHops);
  EXPECT_EQ(t.package, topo_test::kFrontierPackage);
  EXPECT_EQ(t.numa, topo_test::kFrontierNuma);
}

TEST(Models, Mi250ExactAndThePapersStatements) {
  const NodeTopology t = *builtin_model("mi250");
  EXPECT_EQ(t.links, topo_test::kMi250Links);
  EXPECT_EQ(t.hops, topo_test::kMi250Hops);
  EXPECT_EQ(t.package, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(t.numa, (std::vector<int>{1, 1, 1, 1, 3, 3, 3, 3}));
  EXPECT_EQ(hop_count(t, 0, 4), 1);   // GCD 0 and 4 one hop apart
  EXPECT_EQ(hop_count(t, 0, 2), 2);   // 0 and 2 two hops
  EXPECT_EQ(link_count(t, 6, 4), 0);  // Fig. 2: 6 reaches neither 4 nor 5 directly
  EXPECT_EQ(link_count(t, 6, 5), 0);
  EXPECT_GT(link_count(t, 1, 3), 0);  // Fig. 3: 1 reaches 3 directly ...
  EXPECT_EQ(link_count(t, 1, 2), 0);  // ... but not 2
}

TEST(Models, HopsAgreeWithLinkGraph) {
  for (const char* name : {"frontier", "mi250", "mi300x", "mi300a", "summit", "dgx-h100"}) {
    const NodeTopology t = *builtin_model(name);
    EXPECT_EQ(hops_from_links(t.devices, t.links), t.hops) << name;
    EXPECT_EQ(packages_from_links(t.devices, t.links), t.package) << name;
  }
}

TEST(Models, Others) {
  const NodeTopology x = *builtin_model("mi300x");
  EXPECT_EQ(x.devices, 8);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(link_count(x, i, j), i == j ? 0 : 1);
      EXPECT_EQ(hop_count(x, i, j), i == j ? 0 : 1);
    }
  EXPECT_EQ(x.package, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));

  const NodeTopology a = *builtin_model("mi300a");
  EXPECT_EQ(a.devices, 4);
  EXPECT_EQ(link_count(a, 0, 3), 2);
  EXPECT_EQ(a.package, (std::vector<int>{0, 1, 2, 3}));

  const NodeTopology s = *builtin_model("summit");
  EXPECT_EQ(s.devices, 6);
  EXPECT_EQ(link_count(s, 0, 2), 2);
  EXPECT_EQ(link_count(s, 3, 5), 2);
  EXPECT_EQ(link_count(s, 2, 3), 0);
  EXPECT_EQ(hop_count(s, 1, 2), 1);
  EXPECT_EQ(hop_count(s, 0, 4), 2);
  EXPECT_EQ(s.package, (std::vector<int>{0, 1, 2, 3, 4, 5}));

  const NodeTopology h = *builtin_model("dgx-h100");
  EXPECT_EQ(h.devices, 8);
  EXPECT_EQ(link_count(h, 0, 7), 18);
  EXPECT_EQ(hop_count(h, 0, 7), 1);
  EXPECT_EQ(h.package, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
}

}  // namespace
}  // namespace nbrcoll::topo
