#include "bench/core/matrix_gen.h"

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bench/core/mtx.h"
#include "bench/core/rng.h"

namespace nbrbench {

using Edges = std::vector<std::pair<std::int64_t, std::int64_t>>;

CsrMatrix cube_connected_cycles(int d) {
  if (d < 3 || d > 24) throw std::invalid_argument("ccc: d must be in [3, 24]");
  const std::int64_t cubes = std::int64_t{1} << d;
  Edges e;
  for (std::int64_t x = 0; x < cubes; ++x)
    for (int i = 0; i < d; ++i) {
      e.emplace_back(d * x + i, d * x + (i + 1) % d);
      e.emplace_back(d * x + i, d * (x ^ (std::int64_t{1} << i)) + i);
    }
  return graph_matrix(cubes * d, e);
}

CsrMatrix de_bruijn(int d) {
  if (d < 1 || d > 28) throw std::invalid_argument("debruijn: d must be in [1, 28]");
  const std::int64_t n = std::int64_t{1} << d;
  Edges e;
  for (std::int64_t x = 0; x < n; ++x) {
    e.emplace_back(x, (2 * x) % n);
    e.emplace_back(x, (2 * x + 1) % n);
  }
  return graph_matrix(n, e);
}

CsrMatrix delaunay_like(std::int64_t n, std::uint64_t seed) {
  if (n < 1) throw std::invalid_argument("delaunay: need at least one point");
  const auto w = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(std::sqrt(static_cast<double>(n)))));
  auto id = [w](std::int64_t x, std::int64_t y) { return y * w + x; };
  SplitMix64 rng(seed);
  Edges e;
  for (std::int64_t v = 0; v < n; ++v) {
    const std::int64_t x = v % w, y = v / w;
    if (x + 1 < w && v + 1 < n) e.emplace_back(v, v + 1);
    if (id(x, y + 1) < n) e.emplace_back(v, id(x, y + 1));
    // The cell right-below v: split by one of its two diagonals.
    if (x + 1 < w && id(x + 1, y + 1) < n) {
      if (rng.next() & 1)
        e.emplace_back(v, id(x + 1, y + 1));
      else
        e.emplace_back(v + 1, id(x, y + 1));
    }
  }
  return graph_matrix(n, e);
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t p = s.find(sep, start);
    parts.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) return parts;
    start = p + 1;
  }
}

long long to_int(const std::string& s, const std::string& spec) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.size()) throw std::runtime_error("bad number '" + s + "' in matrix spec '" + spec + "'");
  return v;
}

}  // namespace

CsrMatrix load_matrix(const std::string& spec) {
  if (spec.rfind("gen:", 0) != 0) return read_matrix_market_file(spec);
  const auto p = split(spec, ':');
  if (p.size() == 3 && p[1] == "ccc") return cube_connected_cycles(static_cast<int>(to_int(p[2], spec)));
  if (p.size() == 3 && p[1] == "debruijn") return de_bruijn(static_cast<int>(to_int(p[2], spec)));
  if ((p.size() == 3 || p.size() == 4) && p[1] == "delaunay")
    return delaunay_like(to_int(p[2], spec), p.size() == 4 ? static_cast<std::uint64_t>(to_int(p[3], spec)) : 1);
  throw std::runtime_error("unknown generator '" + spec + "' (gen:ccc:D, gen:debruijn:D, gen:delaunay:N[:SEED])");
}

std::string matrix_name(const std::string& spec) {
  if (spec.rfind("gen:", 0) == 0) {
    std::string name;
    for (const auto& part : split(spec.substr(4), ':')) name += part;
    return name;
  }
  std::string base = spec.substr(spec.find_last_of('/') == std::string::npos ? 0 : spec.find_last_of('/') + 1);
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".mtx") == 0) base.resize(base.size() - 4);
  return base;
}

}  // namespace nbrbench
