// The geometry of the stencil mini-application's halo exchange, the same on
// every rank and without MPI: the process grid, each rank's neighbours
// (faces, or faces, edges and corners), the interior box a rank sends to
// each neighbour and the halo box it receives from it, and the closed form
// of every cell of the local array after one exchange. Local arrays are in
// C order (the last dimension fastest); the Fortran program lays its arrays
// out with the dimensions reversed, so the same memory holds the same cells.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nbrstencil {

constexpr int kMaxDims = 3;
using Index = std::array<int, kMaxDims>;

struct Grid {
  int dims = 2;
  Index procs{1, 1, 1};                   // processes per dimension (unused dimensions 1)
  std::array<bool, kMaxDims> periodic{};  // periodic where a dimension has 3 or more processes
  int n = 64;                             // interior cells per dimension on every rank
  int halo = 1;                           // halo width
  [[nodiscard]] int ranks() const { return procs[0] * procs[1] * procs[2]; }
  [[nodiscard]] int extent() const { return n + 2 * halo; }  // cells per dimension of a local array
  [[nodiscard]] std::size_t cells() const;                   // extent()^dims
};

// `procs` as MPI_Dims_create gives them (the first `dims` used). Periodic
// only where a dimension has 3 or more processes: with 1 or 2 a periodic
// dimension names one rank twice (or itself), which MPI 4.1 section 8.6
// orders in a way both MPIs here get wrong natively (README); the
// mini-application's neighbours are then distinct ranks or MPI_PROC_NULL.
Grid make_grid(int dims, const Index& procs, int n, int halo);

// Coordinates of `rank` (row-major, as MPI_Cart_create without reordering),
// and the rank at coords + offset: -1 beyond a non-periodic border.
Index coords_of(const Grid& g, int rank);
int rank_at(const Grid& g, const Index& coords, const Index& offset);

enum class Stencil { kFaces, kFull };
// "faces" (2 x dims neighbours) or "full" (3^dims - 1: faces, edges, corners).
Stencil parse_stencil(const std::string& name);
// Neighbour offsets: faces in the Cartesian order (per dimension, -1 then
// +1), or all 3^dims - 1 in lexicographic order.
std::vector<Index> neighbour_offsets(const Grid& g, Stencil s);

// A box of cells of the local array: start and size per dimension.
struct Box {
  Index start{0, 0, 0};
  Index size{1, 1, 1};
  [[nodiscard]] std::size_t cells() const;
};
// The interior cells a rank sends towards `offset`, and the halo cells it
// receives from there.
Box send_box(const Grid& g, const Index& offset);
Box recv_box(const Grid& g, const Index& offset);

// Row-major index of a local cell.
std::size_t cell_index(const Grid& g, const Index& local);
// Calls f(cell_index) for every cell of `b`, row-major.
template <class F>
void for_each_cell(const Grid& g, const Box& b, F f) {
  for (int i = 0; i < b.size[0]; ++i) {
    for (int j = 0; j < b.size[1]; ++j) {
      for (int k = 0; k < b.size[2]; ++k) f(cell_index(g, {b.start[0] + i, b.start[1] + j, b.start[2] + k}));
    }
  }
}

// The value of the cell at global coordinates `global` in exchange `round`:
// distinct for every cell of the whole grid, exact in a double.
double cell_value(const Grid& g, const Index& global, std::uint64_t round);

constexpr double kGuard = -1.0;  // every halo cell before an exchange

// Rank `rank`'s array before exchange `round`: interior cells their value,
// halo cells kGuard.
void fill(const Grid& g, int rank, double* field, std::uint64_t round);

// After an exchange over `offsets` (those with a neighbour): every interior
// cell its value, every halo cell towards an exchanged offset with a
// neighbour the value of the neighbour's cell there (global coordinates,
// periodic wrap), every other halo cell kGuard. The row-major index of the
// first cell that differs, or -1.
long long first_wrong_cell(const Grid& g, int rank, const std::vector<Index>& offsets, const double* field,
                           std::uint64_t round);

}  // namespace nbrstencil
