// The neighbour list of one rank of a Cartesian grid, in the standard's
// order, written once for the planner's tests (kNoRank at the borders) and
// the MPI test programs (MPI_PROC_NULL): no MPI, header only.
#pragma once

#include <cstddef>
#include <vector>

namespace nbrcoll::algos::testing {

// Rank `rank` of a grid of `dims` (MPI_Cart_create's numbering: row-major,
// the last dimension fastest): per dimension its neighbour at -1, then at
// +1 (MPI_Cart_shift(comm, d, 1) gives them as source and destination),
// `border` past the edge of a non-periodic dimension. A Cartesian
// communicator's in-list and out-list are both this list.
template <class Periods>
std::vector<int> cartesian_neighbours(const std::vector<int>& dims, const Periods& periods, int rank, int border) {
  const std::size_t n = dims.size();
  std::vector<int> coords(n);
  for (std::size_t d = n, rest = static_cast<std::size_t>(rank); d-- > 0;) {
    coords[d] = static_cast<int>(rest % static_cast<std::size_t>(dims[d]));
    rest /= static_cast<std::size_t>(dims[d]);
  }
  std::vector<int> list;
  for (std::size_t d = 0; d < n; ++d) {
    for (const int step : {-1, 1}) {
      std::vector<int> at = coords;
      at[d] += step;
      if ((at[d] < 0 || at[d] >= dims[d]) && !periods[d]) {
        list.push_back(border);
        continue;
      }
      at[d] = (at[d] + dims[d]) % dims[d];
      int r = 0;
      for (std::size_t e = 0; e < n; ++e) r = r * dims[e] + at[e];
      list.push_back(r);
    }
  }
  return list;
}

}  // namespace nbrcoll::algos::testing
