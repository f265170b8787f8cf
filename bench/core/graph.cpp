#include "bench/core/graph.h"

#include <sstream>
#include <stdexcept>
#include <string>

#include "bench/core/rng.h"

namespace nbrbench {

std::size_t Graph::edges() const {
  std::size_t e = 0;
  for (const auto& o : out) e += o.size();
  return e;
}

void add_edge(Graph& g, int src, int dst) {
  g.out[static_cast<std::size_t>(src)].push_back(dst);
  g.in[static_cast<std::size_t>(dst)].push_back(src);
}

static Graph empty_graph(int n) {
  if (n < 1) throw std::invalid_argument("graph needs at least one vertex");
  Graph g;
  g.n = n;
  g.in.resize(static_cast<std::size_t>(n));
  g.out.resize(static_cast<std::size_t>(n));
  return g;
}

Graph random_sparse_graph(int n, double density, std::uint64_t seed) {
  if (!(density >= 0.0 && density <= 1.0)) throw std::invalid_argument("density must be in [0, 1]");
  Graph g = empty_graph(n);
  SplitMix64 rng(seed);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      if (rng.uniform() < density) add_edge(g, i, j);
    }
  return g;
}

// The rank at offset number `o` (base 2r+1 digits, each minus r) from v, the
// offset taken with `sign`; -1 for the zero offset.
static int moore_neighbour(const std::vector<int>& dims, int radius, int v, int o, int sign) {
  const int side = 2 * radius + 1;
  const std::size_t nd = dims.size();
  std::vector<int> coord(nd), off(nd);
  bool zero = true;
  for (std::size_t k = nd; k-- > 0;) {
    coord[k] = v % dims[k];
    v /= dims[k];
    off[k] = o % side - radius;
    o /= side;
    zero = zero && off[k] == 0;
  }
  if (zero) return -1;
  int r = 0;
  for (std::size_t k = 0; k < nd; ++k) r = r * dims[k] + ((coord[k] + sign * off[k]) % dims[k] + dims[k]) % dims[k];
  return r;
}

Graph moore_graph(const std::vector<int>& dims, int radius) {
  if (dims.empty()) throw std::invalid_argument("moore: need at least one dimension");
  if (radius < 0) throw std::invalid_argument("moore: radius must be >= 0");
  int n = 1;
  for (int d : dims) {
    if (d < 1) throw std::invalid_argument("moore: every extent must be >= 1");
    n *= d;
  }
  Graph g = empty_graph(n);
  int offsets = 1;
  for (std::size_t k = 0; k < dims.size(); ++k) offsets *= 2 * radius + 1;
  // v sends to v + off and receives from v - off, for every offset in one
  // order: the edge multisets of senders and receivers agree.
  for (int v = 0; v < n; ++v)
    for (int o = 0; o < offsets; ++o) {
      const int dst = moore_neighbour(dims, radius, v, o, +1);
      if (dst < 0) continue;
      g.out[static_cast<std::size_t>(v)].push_back(dst);
      g.in[static_cast<std::size_t>(v)].push_back(moore_neighbour(dims, radius, v, o, -1));
    }
  return g;
}

Graph read_edge_list(std::istream& in, int n) {
  Graph g = empty_graph(n);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream ls(line);
    long long src = 0, dst = 0;
    if (!(ls >> src)) continue;  // blank or comment-only line
    std::string extra;
    if (!(ls >> dst) || (ls >> extra))
      throw std::runtime_error("edge list line " + std::to_string(lineno) + ": expected 'src dst'");
    if (src < 0 || dst < 0 || src >= n || dst >= n)
      throw std::runtime_error("edge list line " + std::to_string(lineno) + ": rank out of range [0, " +
                               std::to_string(n) + ")");
    add_edge(g, static_cast<int>(src), static_cast<int>(dst));
  }
  return g;
}

}  // namespace nbrbench
