#include "topo/locality.h"

#include <charconv>

namespace nbrcoll::topo {

int device_for_local_rank(int local_rank, int devices, const std::vector<int>& device_map) {
  if (devices < 1 || local_rank < 0) return 0;
  const auto r = static_cast<std::size_t>(local_rank);
  if (r < device_map.size() && device_map[r] >= 0 && device_map[r] < devices) return device_map[r];
  return local_rank % devices;
}

std::string parse_device_map(const std::string& text, std::vector<int>& map) {
  map.clear();
  std::vector<int> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? std::string() : item.substr(b, e - b + 1);
    int v = -1;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc{} || p != item.data() + item.size() || v < 0)
      return "NBRCOLL_DEVICE_MAP entry " + std::to_string(out.size()) + " ('" + item + "') is not a device index";
    out.push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  map = std::move(out);
  return {};
}

int emulated_node(int rank, int ranks_per_node) {
  if (rank < 0) return -1;
  if (ranks_per_node < 1) return 0;
  return rank / ranks_per_node;
}

int emulated_local_rank(int rank, int ranks_per_node) {
  if (rank < 0 || ranks_per_node < 1) return 0;
  return rank % ranks_per_node;
}

}  // namespace nbrcoll::topo
