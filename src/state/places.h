// Where every rank of a graph communicator lives, from one fixed-size record
// per rank exchanged once over the whole communicator (graph_setup.cpp does
// the exchange). Pure: no MPI calls, unit-tested (tests/unit/core).
//
// A rank cannot know its own device before the exchange: the device follows
// from its local rank (its place among the ranks of its node, by graph rank),
// and which ranks share its node is what the exchange tells. So each record
// carries what every rank needs to work out the sender's device and package
// itself: its node key, its node's device count and package table, and a hash
// of its NBRCOLL_DEVICE_MAP. Every rank decodes the same records with the same
// function, so all ranks agree on every rank's (node, device, package).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algos/plan.h"

namespace nbrcoll {

// One rank's record: this many 64-bit words.
inline constexpr int kPlaceWords = 4;

// A package table fits in a record when the node has at most this many
// devices (4 bits per device; package ids are < devices).
inline constexpr int kPackedDevicesMax = 16;

// What a rank knows of itself before the exchange.
struct OwnPlace {
  std::uint64_t node_key = 0;
  int world_rank = 0;
  bool failed = false;  // could not read its neighbours: every rank gives up
  int devices = 1;      // this node's topology
  std::vector<int> package;
  std::uint64_t device_map_hash = 0;
};

void encode_place(const OwnPlace& place, std::int64_t words[kPlaceWords]);

// Node key of a process: emulated nodes (ranks_per_node > 0) world_rank / k,
// otherwise a hash of `host_identity` (hostname and boot id). The two kinds
// never collide.
std::uint64_t node_key(int world_rank, int ranks_per_node, const std::string& host_identity);

// FNV-1a, 64 bit; the device map hash hashes its entries and its length.
std::uint64_t hash_bytes(const void* data, std::size_t size, std::uint64_t seed = 14695981039346656037ull);
std::uint64_t hash_device_map(const std::vector<int>& device_map);

struct DecodedPlaces {
  bool any_failed = false;  // a rank could not read its neighbours
  // Every device and package was worked out from the records (every node's
  // package table fits, every rank has the same device map). Otherwise
  // places[].device and .package are unset and each rank must say its own
  // (local_rank tells it which device is its).
  bool derived = false;
  int nodes = 0;
  std::vector<algos::RankPlace> places;
  std::vector<int> local_rank;  // index among the ranks of its node, by graph rank
  std::vector<int> process_of;  // world rank
};

// Decodes `size` records. Dense node ids in the order of each node's lowest
// graph rank. `device_map` is this rank's NBRCOLL_DEVICE_MAP (used only when
// every record carries its hash).
DecodedPlaces decode_places(const std::int64_t* words, int size, const std::vector<int>& device_map);

// The ranks of `rank`'s node other than `rank`, ascending.
std::vector<int> node_peers(const std::vector<algos::RankPlace>& places, int rank);
inline std::vector<int> node_peers(const DecodedPlaces& places, int rank) {
  return node_peers(places.places, rank);
}

}  // namespace nbrcoll
