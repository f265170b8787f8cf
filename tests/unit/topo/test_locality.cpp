// Pure locality helpers.
#include <gtest/gtest.h>

#include "topo/locality.h"

namespace nbrcoll::topo {
namespace {

TEST(DeviceForLocalRank, RoundRobinWithoutMap) {
  EXPECT_EQ(device_for_local_rank(0, 8, {}), 0);
  EXPECT_EQ(device_for_local_rank(7, 8, {}), 7);
  EXPECT_EQ(device_for_local_rank(9, 8, {}), 1);
  EXPECT_EQ(device_for_local_rank(5, 1, {}), 0);
}

TEST(DeviceForLocalRank, ExplicitMapWinsWhereValid) {
  const std::vector<int> map = {6, 4, 42, -1};
  EXPECT_EQ(device_for_local_rank(0, 8, map), 6);
  EXPECT_EQ(device_for_local_rank(1, 8, map), 4);
  EXPECT_EQ(device_for_local_rank(2, 8, map), 2);  // 42 out of range: round robin
  EXPECT_EQ(device_for_local_rank(3, 8, map), 3);
  EXPECT_EQ(device_for_local_rank(12, 8, map), 4);  // beyond the map
}

TEST(DeviceForLocalRank, DegenerateInputs) {
  EXPECT_EQ(device_for_local_rank(3, 0, {}), 0);
  EXPECT_EQ(device_for_local_rank(3, -2, {1}), 0);
  EXPECT_EQ(device_for_local_rank(-1, 8, {}), 0);
}

TEST(ParseDeviceMap, GoodAndBad) {
  std::vector<int> map;
  EXPECT_EQ(parse_device_map("0, 2,4 ,6", map), "");
  EXPECT_EQ(map, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(parse_device_map("3", map), "");
  EXPECT_EQ(map, std::vector<int>{3});
  EXPECT_NE(parse_device_map("0,,1", map).find("entry 1"), std::string::npos);
  EXPECT_TRUE(map.empty());
  EXPECT_NE(parse_device_map("0,x", map).find("('x')"), std::string::npos);
  EXPECT_NE(parse_device_map("-1", map), "");
  EXPECT_NE(parse_device_map("", map), "");
  EXPECT_NE(parse_device_map("1,", map), "");
}

TEST(EmulatedNode, BlocksOfK) {
  EXPECT_EQ(emulated_node(0, 4), 0);
  EXPECT_EQ(emulated_node(3, 4), 0);
  EXPECT_EQ(emulated_node(4, 4), 1);
  EXPECT_EQ(emulated_node(11, 4), 2);
  EXPECT_EQ(emulated_local_rank(11, 4), 3);
  EXPECT_EQ(emulated_node(5, 0), 0);
  EXPECT_EQ(emulated_node(5, -1), 0);
  EXPECT_EQ(emulated_local_rank(5, 0), 0);
  EXPECT_EQ(emulated_node(-1, 4), -1);
}

}  // namespace
}  // namespace nbrcoll::topo
