#include "topo/graph.h"

#include <algorithm>
#include <cstddef>
#include <map>

namespace nbrcoll::topo {
namespace {

std::size_t idx(int i, int j, int n) {
  return static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j);
}

}  // namespace

std::vector<int> hops_from_links(int n, const std::vector<int>& links) {
  if (n < 1 || links.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n)) return {};
  std::vector<int> hops(links.size(), -1);
  std::vector<int> queue;
  int longest = 0;
  for (int s = 0; s < n; ++s) {
    queue.assign(1, s);
    hops[idx(s, s, n)] = 0;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const int u = queue[q];
      for (int v = 0; v < n; ++v) {
        if (links[idx(u, v, n)] > 0 && hops[idx(s, v, n)] < 0) {
          hops[idx(s, v, n)] = hops[idx(s, u, n)] + 1;
          longest = std::max(longest, hops[idx(s, v, n)]);
          queue.push_back(v);
        }
      }
    }
  }
  for (int& h : hops)
    if (h < 0) h = longest + 1;
  return hops;
}

std::vector<int> normalize_labels(const std::vector<int>& labels) {
  std::map<int, int> ids;
  std::vector<int> out;
  out.reserve(labels.size());
  for (int l : labels) {
    auto it = ids.try_emplace(l, static_cast<int>(ids.size())).first;
    out.push_back(it->second);
  }
  return out;
}

std::vector<int> packages_from_links(int n, const std::vector<int>& links) {
  std::vector<int> own(static_cast<std::size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) own[static_cast<std::size_t>(i)] = i;
  if (n < 1 || links.size() != static_cast<std::size_t>(n) * static_cast<std::size_t>(n)) return own;
  const int top = *std::max_element(links.begin(), links.end());
  if (top < 2) return own;
  // Union the pairs joined by `top` links; label = smallest member.
  std::vector<int> label = own;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (links[idx(i, j, n)] != top && links[idx(j, i, n)] != top) continue;
      const int a = label[static_cast<std::size_t>(i)], b = label[static_cast<std::size_t>(j)];
      const int keep = std::min(a, b), drop = std::max(a, b);
      for (int& l : label)
        if (l == drop) l = keep;
    }
  }
  std::map<int, int> size;
  for (int l : label)
    if (++size[l] > 2) return own;
  return normalize_labels(label);
}

}  // namespace nbrcoll::topo
