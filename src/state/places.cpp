#include "state/places.h"

#include <algorithm>
#include <unordered_map>

#include "topo/locality.h"

namespace nbrcoll {

namespace {

// Record layout, 64-bit words:
//   0 node key
//   1 world rank (bits 0-31), devices (32-47), flags (48-)
//   2 package table, 4 bits per device (when kPacked)
//   3 device map hash
enum Word { kKey, kRankDevicesFlags, kPackages, kMapHash };
constexpr std::uint64_t kFailed = 1;
constexpr std::uint64_t kPacked = 2;

std::uint64_t low32(int v) {
  return static_cast<std::uint32_t>(v);
}
int from_low32(std::uint64_t w) {
  return static_cast<int>(static_cast<std::uint32_t>(w & 0xffffffffu));
}

// 4 bits per device, or false when the table does not fit.
bool pack_packages(int devices, const std::vector<int>& package, std::uint64_t& packed) {
  packed = 0;
  if (devices < 1 || devices > kPackedDevicesMax || package.size() < static_cast<std::size_t>(devices)) return false;
  for (int d = 0; d < devices; ++d) {
    const int p = package[static_cast<std::size_t>(d)];
    if (p < 0 || p >= kPackedDevicesMax) return false;
    packed |= static_cast<std::uint64_t>(p) << (4 * d);
  }
  return true;
}

}  // namespace

void encode_place(const OwnPlace& place, std::int64_t words[kPlaceWords]) {
  std::uint64_t packages = 0;
  const bool packed = pack_packages(place.devices, place.package, packages);
  const std::uint64_t flags = (place.failed ? kFailed : 0) | (packed ? kPacked : 0);
  const auto devices = static_cast<std::uint64_t>(std::clamp(place.devices, 0, 0xffff));
  words[kKey] = static_cast<std::int64_t>(place.node_key);
  words[kRankDevicesFlags] = static_cast<std::int64_t>(low32(place.world_rank) | devices << 32 | flags << 48);
  words[kPackages] = static_cast<std::int64_t>(packages);
  words[kMapHash] = static_cast<std::int64_t>(place.device_map_hash);
}

std::uint64_t hash_bytes(const void* data, std::size_t size, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = seed;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::uint64_t hash_device_map(const std::vector<int>& device_map) {
  const std::uint64_t n = device_map.size();
  return hash_bytes(device_map.data(), device_map.size() * sizeof(int), hash_bytes(&n, sizeof n));
}

std::uint64_t node_key(int world_rank, int ranks_per_node, const std::string& host_identity) {
  constexpr std::uint64_t kEmulated = std::uint64_t{1} << 63;
  if (ranks_per_node > 0)
    return kEmulated | static_cast<std::uint64_t>(topo::emulated_node(world_rank, ranks_per_node));
  return hash_bytes(host_identity.data(), host_identity.size()) & ~kEmulated;
}

DecodedPlaces decode_places(const std::int64_t* words, int size, const std::vector<int>& device_map) {
  DecodedPlaces d;
  const auto n = static_cast<std::size_t>(size > 0 ? size : 0);
  d.places.resize(n);
  d.local_rank.resize(n);
  d.process_of.resize(n);
  d.derived = true;
  const std::uint64_t my_map = hash_device_map(device_map);
  std::unordered_map<std::uint64_t, int> node_of_key;
  std::vector<int> members;  // ranks seen so far per node
  for (std::size_t r = 0; r < n; ++r) {
    const auto* w = reinterpret_cast<const std::uint64_t*>(words + kPlaceWords * r);
    const std::uint64_t flags = w[kRankDevicesFlags] >> 48;
    d.any_failed = d.any_failed || (flags & kFailed) != 0;
    d.process_of[r] = from_low32(w[kRankDevicesFlags]);
    // First appearance in graph-rank order: node ids ordered by each node's lowest rank.
    const auto [it, fresh] = node_of_key.try_emplace(w[kKey], static_cast<int>(members.size()));
    if (fresh) members.push_back(0);
    const int node = it->second;
    d.places[r].node = node;
    d.local_rank[r] = members[static_cast<std::size_t>(node)]++;
    d.derived = d.derived && (flags & kPacked) != 0 && w[kMapHash] == my_map;
    if (!d.derived) continue;
    const int devices = static_cast<int>((w[kRankDevicesFlags] >> 32) & 0xffff);
    const int device = topo::device_for_local_rank(d.local_rank[r], devices, device_map);
    d.places[r].device = device;
    d.places[r].package = static_cast<int>((w[kPackages] >> (4 * device)) & 0xf);
  }
  d.nodes = static_cast<int>(members.size());
  return d;
}

std::vector<int> node_peers(const std::vector<algos::RankPlace>& places, int rank) {
  std::vector<int> peers;
  const int node = places[static_cast<std::size_t>(rank)].node;
  for (std::size_t r = 0; r < places.size(); ++r)
    if (places[r].node == node && static_cast<int>(r) != rank) peers.push_back(static_cast<int>(r));
  return peers;
}

}  // namespace nbrcoll
