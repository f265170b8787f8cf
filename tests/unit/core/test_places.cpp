// The places record (src/state/places): every rank's (node, device, package) worked
// out from the one exchange must be what the node split used to give: local
// rank = place among the node's ranks by graph rank, device from it, package
// from the node's table, dense node ids ordered by each node's lowest rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "state/places.h"

namespace nbrcoll {
namespace {

// One rank as a test describes it.
struct Rank {
  std::uint64_t key = 0;
  int devices = 1;
  std::vector<int> package{0};
  std::vector<int> device_map;
};

std::vector<std::int64_t> encode_all(const std::vector<Rank>& ranks) {
  std::vector<std::int64_t> words(kPlaceWords * ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    OwnPlace p;
    p.node_key = ranks[r].key;
    p.world_rank = static_cast<int>(100 + r);
    p.devices = ranks[r].devices;
    p.package = ranks[r].package;
    p.device_map_hash = hash_device_map(ranks[r].device_map);
    encode_place(p, &words[kPlaceWords * r]);
  }
  return words;
}

// The device rule (NBRCOLL_DEVICE_MAP, docs/SETTINGS.md): local rank r takes
// map entry r where the map has one naming a device of its node, else
// r mod devices. Written out here rather than calling the library's helper,
// which decode_places itself uses.
int device_by_rule(int local, int devices, const std::vector<int>& map) {
  const auto r = static_cast<std::size_t>(local);
  if (r < map.size() && map[r] >= 0 && map[r] < devices) return map[r];
  return local % devices;
}

// What the node split gave: each rank computes its own device from its rank
// in the node communicator (ordered by graph rank) and its own topology; node
// ids are the sorted lowest ranks of the nodes.
std::vector<algos::RankPlace> by_node_split(const std::vector<Rank>& ranks) {
  std::map<std::uint64_t, std::vector<int>> members;
  for (std::size_t r = 0; r < ranks.size(); ++r) members[ranks[r].key].push_back(static_cast<int>(r));
  std::vector<int> lowest;
  for (const auto& [key, list] : members) lowest.push_back(list.front());
  std::sort(lowest.begin(), lowest.end());
  std::vector<algos::RankPlace> places(ranks.size());
  for (const auto& [key, list] : members) {
    const int node = static_cast<int>(std::lower_bound(lowest.begin(), lowest.end(), list.front()) - lowest.begin());
    for (std::size_t local = 0; local < list.size(); ++local) {
      const Rank& me = ranks[static_cast<std::size_t>(list[local])];
      const int device = device_by_rule(static_cast<int>(local), me.devices, me.device_map);
      places[static_cast<std::size_t>(list[local])] = {node, device, me.package[static_cast<std::size_t>(device)]};
    }
  }
  return places;
}

void expect_same_places(const std::vector<algos::RankPlace>& a, const std::vector<algos::RankPlace>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t r = 0; r < a.size(); ++r) {
    EXPECT_EQ(a[r].node, b[r].node) << "rank " << r;
    EXPECT_EQ(a[r].device, b[r].device) << "rank " << r;
    EXPECT_EQ(a[r].package, b[r].package) << "rank " << r;
  }
}

const std::vector<int> kFrontierPackages{0, 0, 1, 1, 2, 2, 3, 3};

TEST(Places, RecordFieldsRoundTrip) {
  std::vector<Rank> ranks(3);
  ranks[0] = {5, 8, kFrontierPackages, {}};
  ranks[1] = {5, 8, kFrontierPackages, {}};
  ranks[2] = {9, 8, kFrontierPackages, {}};
  const auto words = encode_all(ranks);
  const DecodedPlaces d = decode_places(words.data(), 3, {});
  EXPECT_FALSE(d.any_failed);
  EXPECT_TRUE(d.derived);
  EXPECT_EQ(d.nodes, 2);
  EXPECT_EQ(d.process_of, (std::vector<int>{100, 101, 102}));
  EXPECT_EQ(d.local_rank, (std::vector<int>{0, 1, 0}));
}

TEST(Places, FailedRankIsSeenByAll) {
  std::vector<std::int64_t> words(2 * kPlaceWords);
  OwnPlace ok;
  encode_place(ok, &words[0]);
  OwnPlace failed;
  failed.failed = true;
  encode_place(failed, &words[kPlaceWords]);
  EXPECT_TRUE(decode_places(words.data(), 2, {}).any_failed);
  EXPECT_FALSE(decode_places(words.data(), 1, {}).any_failed);
}

TEST(Places, NodeIdsFollowEachNodesLowestRank) {
  // Keys in no particular order; nodes first seen at ranks 0, 1, 3.
  std::vector<Rank> ranks(6);
  const std::uint64_t keys[] = {900, 17, 900, 5, 17, 5};
  for (std::size_t r = 0; r < ranks.size(); ++r) ranks[r].key = keys[r];
  const auto words = encode_all(ranks);
  const DecodedPlaces d = decode_places(words.data(), 6, {});
  EXPECT_EQ(d.nodes, 3);
  std::vector<int> nodes;
  for (const auto& p : d.places) nodes.push_back(p.node);
  EXPECT_EQ(nodes, (std::vector<int>{0, 1, 0, 2, 1, 2}));
  EXPECT_EQ(d.local_rank, (std::vector<int>{0, 0, 1, 0, 1, 1}));
  EXPECT_EQ(node_peers(d, 1), (std::vector<int>{4}));
  EXPECT_EQ(node_peers(d, 2), (std::vector<int>{0}));
  expect_same_places(d.places, by_node_split(ranks));
}

TEST(Places, FrontierNodesWithDeviceMap) {
  // 2 nodes x 8 ranks and 3 more on a third: devices 3,2,1,0 for local ranks 0-3.
  const std::vector<int> map{3, 2, 1, 0};
  std::vector<Rank> ranks(19);
  for (std::size_t r = 0; r < ranks.size(); ++r)
    ranks[r] = {node_key(static_cast<int>(r), 8, ""), 8, kFrontierPackages, map};
  const auto words = encode_all(ranks);
  const DecodedPlaces d = decode_places(words.data(), 19, map);
  EXPECT_TRUE(d.derived);
  EXPECT_EQ(d.nodes, 3);
  expect_same_places(d.places, by_node_split(ranks));
  EXPECT_EQ(d.places[0].device, 3);
  EXPECT_EQ(d.places[0].package, 1);
  EXPECT_EQ(d.places[12].device, 4);
  EXPECT_EQ(d.places[12].package, 2);
}

TEST(Places, RandomHeterogeneousNodesMatchTheNodeSplit) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int size = 1 + static_cast<int>(rng() % 40);
    const int nodes = 1 + static_cast<int>(rng() % 6);
    std::vector<std::uint64_t> keys;
    std::vector<int> devices;
    std::vector<std::vector<int>> packages;
    for (int n = 0; n < nodes; ++n) {
      keys.push_back((static_cast<std::uint64_t>(rng()) << 32 | rng()) >> (rng() % 2));
      devices.push_back(1 + static_cast<int>(rng() % kPackedDevicesMax));
      std::vector<int> table;
      for (int dev = 0; dev < devices.back(); ++dev) table.push_back(static_cast<int>(rng() % devices.back()));
      packages.push_back(table);
    }
    std::vector<int> map;
    if (rng() % 2 != 0)
      for (int i = 0; i < 5; ++i) map.push_back(static_cast<int>(rng() % 20));
    std::vector<Rank> ranks(static_cast<std::size_t>(size));
    for (auto& r : ranks) {
      const auto n = static_cast<std::size_t>(rng() % static_cast<unsigned>(nodes));
      r.key = keys[n];
      r.devices = devices[n];
      r.package = packages[n];
      r.device_map = map;
    }
    const auto words = encode_all(ranks);
    const DecodedPlaces d = decode_places(words.data(), size, map);
    ASSERT_TRUE(d.derived);
    expect_same_places(d.places, by_node_split(ranks));
    for (int r = 0; r < size; ++r) {
      for (int p : node_peers(d, r)) {
        EXPECT_NE(p, r);
        EXPECT_EQ(ranks[static_cast<std::size_t>(p)].key, ranks[static_cast<std::size_t>(r)].key);
      }
    }
    if (HasFailure()) FAIL() << "trial " << trial;
  }
}

TEST(Places, NotDerivedWhenATableDoesNotFitOrDeviceMapsDiffer) {
  std::vector<Rank> ranks(4);
  std::vector<int> flat20(20);
  for (int i = 0; i < 20; ++i) flat20[static_cast<std::size_t>(i)] = i;
  for (auto& r : ranks) r = {1, 8, kFrontierPackages, {}};
  ranks[3] = {2, 20, flat20, {}};  // one node with more devices than a record holds
  auto words = encode_all(ranks);
  DecodedPlaces d = decode_places(words.data(), 4, {});
  EXPECT_FALSE(d.derived);
  EXPECT_EQ(d.nodes, 2);
  EXPECT_EQ(d.local_rank, (std::vector<int>{0, 1, 2, 0}));

  ranks[3] = {2, 8, kFrontierPackages, {1, 0}};  // another NBRCOLL_DEVICE_MAP
  words = encode_all(ranks);
  EXPECT_FALSE(decode_places(words.data(), 4, {}).derived);
  EXPECT_FALSE(decode_places(words.data(), 4, {1, 0}).derived);
  for (auto& r : ranks) r.device_map = {1, 0};
  words = encode_all(ranks);
  EXPECT_TRUE(decode_places(words.data(), 4, {1, 0}).derived);
}

TEST(Places, NodeKeys) {
  EXPECT_EQ(node_key(0, 4, "a"), node_key(3, 4, "b"));  // emulated: the host does not matter
  EXPECT_NE(node_key(3, 4, "a"), node_key(4, 4, "a"));
  EXPECT_EQ(node_key(3, 0, "host\nboot"), node_key(9, 0, "host\nboot"));
  EXPECT_NE(node_key(3, 0, "host1\nboot"), node_key(3, 0, "host2\nboot"));
  EXPECT_NE(node_key(3, 0, "host\nboot1"), node_key(3, 0, "host\nboot2"));
  // The two kinds never collide.
  for (int r = 0; r < 64; ++r) EXPECT_NE(node_key(r, 1, ""), node_key(0, 0, std::to_string(r)));
  EXPECT_NE(hash_device_map({}), hash_device_map({0}));
  EXPECT_NE(hash_device_map({1, 0}), hash_device_map({0, 1}));
}

}  // namespace
}  // namespace nbrcoll
