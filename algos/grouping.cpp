#include "algos/grouping.h"

#include <algorithm>
#include <tuple>

namespace nbrcoll::algos {

void group_by_package(std::vector<int>& ranks, const std::vector<RankPlace>& places,
                      std::vector<PackageGroup>& groups) {
  auto key = [&](int r) {
    const RankPlace& p = places[static_cast<std::size_t>(r)];
    return std::tuple(p.package, p.device, r);
  };
  std::sort(ranks.begin(), ranks.end(), [&](int a, int b) { return key(a) < key(b); });
  groups.clear();
  std::size_t first = 0;
  for (std::size_t i = 1; i <= ranks.size(); ++i) {
    const int package = places[static_cast<std::size_t>(ranks[first])].package;
    if (i < ranks.size() && places[static_cast<std::size_t>(ranks[i])].package == package) continue;
    groups.push_back({package, std::span<const int>(ranks).subspan(first, i - first)});
    first = i;
  }
}

std::vector<std::uint32_t> intra_weights(int source, std::span<const int> members, const std::vector<RankPlace>& places,
                                         const NodeMatrices& node) {
  const std::size_t n = members.size();
  std::vector<std::uint32_t> w(n, 1);
  const int src = places[static_cast<std::size_t>(source)].device;
  auto known = [&](int device) { return device >= 0 && device < node.devices; };
  if (!known(src)) return w;
  for (const int m : members) {
    if (!known(places[static_cast<std::size_t>(m)].device)) return w;
  }
  auto dev = [&](std::size_t i) { return places[static_cast<std::size_t>(members[i])].device; };
  auto positive = [](int v) { return static_cast<std::uint32_t>(std::max(v, 0)); };

  std::uint32_t links = 0;
  for (std::size_t i = 0; i < n; ++i) links += positive(node.link(src, dev(i)));
  if (links > 0) {  // Eq. 2
    for (std::size_t i = 0; i < n; ++i) w[i] = positive(node.link(src, dev(i)));
    return w;
  }
  std::uint32_t n_h = 0;
  for (std::size_t i = 0; i < n; ++i) n_h += positive(node.hop(src, dev(i)));
  std::uint32_t sum = 0;
  std::vector<std::uint32_t> hw(n);
  for (std::size_t i = 0; i < n; ++i) {  // Eq. 1 (times n_h, so integers)
    hw[i] = n_h - std::min(n_h, positive(node.hop(src, dev(i))));
    sum += hw[i];
  }
  if (sum > 0) w = std::move(hw);
  return w;
}

}  // namespace nbrcoll::algos
