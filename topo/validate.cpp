#include "topo/validate.h"

#include <cstddef>

namespace nbrcoll::topo {
namespace {

std::string entry(const char* name, int i, int j, int v) {
  return std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]=" + std::to_string(v);
}

// Checks one n x n matrix; `min_off` is the smallest value allowed off the diagonal.
std::string check_matrix(const char* name, const std::vector<int>& m, int n, int min_off, bool symmetric) {
  const auto un = static_cast<std::size_t>(n);
  if (m.size() != un * un) {
    return std::string(name) + " has " + std::to_string(m.size()) + " entries, expected " + std::to_string(n) + "x" +
           std::to_string(n);
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int v = m[static_cast<std::size_t>(i) * un + static_cast<std::size_t>(j)];
      if (i == j && v != 0) return entry(name, i, j, v) + " but the diagonal must be 0";
      if (i != j && v < min_off)
        return entry(name, i, j, v) + " but entries off the diagonal must be >= " + std::to_string(min_off);
      if (symmetric && j > i) {
        const int w = m[static_cast<std::size_t>(j) * un + static_cast<std::size_t>(i)];
        if (v != w) return entry(name, i, j, v) + " but " + entry(name, j, i, w);
      }
    }
  }
  return {};
}

}  // namespace

std::string validate_topology(const NodeTopology& t, bool require_symmetric) {
  const int n = t.devices;
  if (n < 1 || n > kMaxDevices)
    return "devices=" + std::to_string(n) + " but it must be in [1, " + std::to_string(kMaxDevices) + "]";
  if (auto e = check_matrix("links", t.links, n, 0, require_symmetric); !e.empty()) return e;
  if (auto e = check_matrix("hops", t.hops, n, 1, require_symmetric); !e.empty()) return e;
  const auto un = static_cast<std::size_t>(n);
  if (t.package.size() != un)
    return "package has " + std::to_string(t.package.size()) + " entries, expected " + std::to_string(n);
  for (std::size_t i = 0; i < un; ++i) {
    if (t.package[i] < 0 || t.package[i] >= n) {
      return "package[" + std::to_string(i) + "]=" + std::to_string(t.package[i]) + " but it must be in [0, " +
             std::to_string(n - 1) + "]";
    }
  }
  if (t.numa.size() != un)
    return "numa has " + std::to_string(t.numa.size()) + " entries, expected " + std::to_string(n);
  for (std::size_t i = 0; i < un; ++i)
    if (t.numa[i] < -1) return "numa[" + std::to_string(i) + "]=" + std::to_string(t.numa[i]) + " but it must be >= -1";
  return {};
}

}  // namespace nbrcoll::topo
