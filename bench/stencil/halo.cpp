#include "bench/stencil/halo.h"

#include <stdexcept>

namespace nbrstencil {

namespace {

// Cells of the local array along dimension k (1 for an unused one).
int local_extent(const Grid& g, int k) {
  return k < g.dims ? g.extent() : 1;
}

// Which side of the interior a local index lies on along dimension k.
int side(const Grid& g, int k, int local) {
  if (k >= g.dims) return 0;
  if (local < g.halo) return -1;
  return local >= g.n + g.halo ? 1 : 0;
}

}  // namespace

std::size_t Grid::cells() const {
  std::size_t c = 1;
  for (int k = 0; k < dims; ++k) c *= static_cast<std::size_t>(extent());
  return c;
}

std::size_t Box::cells() const {
  return static_cast<std::size_t>(size[0]) * static_cast<std::size_t>(size[1]) * static_cast<std::size_t>(size[2]);
}

Grid make_grid(int dims, const Index& procs, int n, int halo) {
  if (dims < 1 || dims > kMaxDims) throw std::invalid_argument("dims must be 1, 2 or 3");
  if (n < 1 || halo < 1 || halo > n) throw std::invalid_argument("need 1 <= halo <= n");
  Grid g;
  g.dims = dims;
  g.n = n;
  g.halo = halo;
  for (int k = 0; k < kMaxDims; ++k) {
    g.procs[static_cast<std::size_t>(k)] = k < dims ? procs[static_cast<std::size_t>(k)] : 1;
    g.periodic[static_cast<std::size_t>(k)] = k < dims && g.procs[static_cast<std::size_t>(k)] >= 3;
  }
  return g;
}

Index coords_of(const Grid& g, int rank) {
  Index c{0, 0, 0};
  for (int k = kMaxDims - 1; k >= 0; --k) {
    const int p = g.procs[static_cast<std::size_t>(k)];
    c[static_cast<std::size_t>(k)] = rank % p;
    rank /= p;
  }
  return c;
}

int rank_at(const Grid& g, const Index& coords, const Index& offset) {
  int rank = 0;
  for (std::size_t k = 0; k < kMaxDims; ++k) {
    const int p = g.procs[k];
    int c = coords[k] + offset[k];
    if (c < 0 || c >= p) {
      if (!g.periodic[k]) return -1;
      c = (c % p + p) % p;
    }
    rank = rank * p + c;
  }
  return rank;
}

Stencil parse_stencil(const std::string& name) {
  if (name == "faces") return Stencil::kFaces;
  if (name == "full") return Stencil::kFull;
  throw std::invalid_argument("stencil '" + name + "': faces or full");
}

std::vector<Index> neighbour_offsets(const Grid& g, Stencil s) {
  std::vector<Index> out;
  if (s == Stencil::kFaces) {
    for (int k = 0; k < g.dims; ++k) {
      for (const int d : {-1, 1}) {
        Index o{0, 0, 0};
        o[static_cast<std::size_t>(k)] = d;
        out.push_back(o);
      }
    }
    return out;
  }
  const int span0 = g.dims > 0 ? 1 : 0;
  const int span1 = g.dims > 1 ? 1 : 0;
  const int span2 = g.dims > 2 ? 1 : 0;
  for (int a = -span0; a <= span0; ++a) {
    for (int b = -span1; b <= span1; ++b) {
      for (int c = -span2; c <= span2; ++c) {
        if (a != 0 || b != 0 || c != 0) out.push_back({a, b, c});
      }
    }
  }
  return out;
}

Box send_box(const Grid& g, const Index& offset) {
  Box b;
  for (int k = 0; k < g.dims; ++k) {
    const auto u = static_cast<std::size_t>(k);
    b.start[u] = offset[u] < 0 ? g.halo : (offset[u] > 0 ? g.n : g.halo);
    b.size[u] = offset[u] != 0 ? g.halo : g.n;
  }
  return b;
}

Box recv_box(const Grid& g, const Index& offset) {
  Box b;
  for (int k = 0; k < g.dims; ++k) {
    const auto u = static_cast<std::size_t>(k);
    b.start[u] = offset[u] < 0 ? 0 : (offset[u] > 0 ? g.n + g.halo : g.halo);
    b.size[u] = offset[u] != 0 ? g.halo : g.n;
  }
  return b;
}

std::size_t cell_index(const Grid& g, const Index& local) {
  std::size_t i = 0;
  for (int k = 0; k < kMaxDims; ++k)
    i = i * static_cast<std::size_t>(local_extent(g, k)) + static_cast<std::size_t>(local[static_cast<std::size_t>(k)]);
  return i;
}

double cell_value(const Grid& g, const Index& global, std::uint64_t round) {
  std::uint64_t linear = 0;
  std::uint64_t total = 1;
  for (std::size_t k = 0; k < kMaxDims; ++k) {
    const auto width = static_cast<std::uint64_t>(g.procs[k]) *
                       static_cast<std::uint64_t>(k < static_cast<std::size_t>(g.dims) ? g.n : 1);
    linear = linear * width + static_cast<std::uint64_t>(global[k]);
    total *= width;
  }
  return static_cast<double>((round % 4096) * total + linear + 1);
}

namespace {

// Calls f(local) for every cell of the local array, row-major.
template <class F>
void for_each_local(const Grid& g, F f) {
  Index size{1, 1, 1};
  for (int k = 0; k < g.dims; ++k) size[static_cast<std::size_t>(k)] = g.extent();
  for (int i = 0; i < size[0]; ++i) {
    for (int j = 0; j < size[1]; ++j) {
      for (int l = 0; l < size[2]; ++l) f(Index{i, j, l});
    }
  }
}

// The global coordinates of a local cell (periodic wrap), and its side
// (the offset of the neighbour whose halo it is; zero for the interior).
void locate(const Grid& g, const Index& me, const Index& local, Index& global, Index& offset) {
  global = {0, 0, 0};
  offset = {0, 0, 0};
  for (int k = 0; k < g.dims; ++k) {
    const auto u = static_cast<std::size_t>(k);
    offset[u] = side(g, k, local[u]);
    const int width = g.procs[u] * g.n;
    global[u] = ((me[u] * g.n + local[u] - g.halo) % width + width) % width;
  }
}

}  // namespace

void fill(const Grid& g, int rank, double* field, std::uint64_t round) {
  const Index me = coords_of(g, rank);
  for_each_local(g, [&](const Index& local) {
    Index global;
    Index offset;
    locate(g, me, local, global, offset);
    field[cell_index(g, local)] = offset == Index{0, 0, 0} ? cell_value(g, global, round) : kGuard;
  });
}

long long first_wrong_cell(const Grid& g, int rank, const std::vector<Index>& offsets, const double* field,
                           std::uint64_t round) {
  const Index me = coords_of(g, rank);
  long long first = -1;
  for_each_local(g, [&](const Index& local) {
    if (first >= 0) return;
    Index global;
    Index o;
    locate(g, me, local, global, o);
    bool exchanged = o == Index{0, 0, 0};
    for (const Index& x : offsets) exchanged = exchanged || x == o;
    const bool filled = o == Index{0, 0, 0} || (exchanged && rank_at(g, me, o) >= 0);
    const std::size_t at = cell_index(g, local);
    if (field[at] != (filled ? cell_value(g, global, round) : kGuard)) first = static_cast<long long>(at);
  });
  return first;
}

}  // namespace nbrstencil
