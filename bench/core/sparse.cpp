#include "bench/core/sparse.h"

#include <algorithm>
#include <stdexcept>

namespace nbrbench {

CsrMatrix to_csr(std::int64_t rows, std::int64_t cols, std::vector<Triplet> entries) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("negative matrix extent");
  std::sort(entries.begin(), entries.end(),
            [](const Triplet& a, const Triplet& b) { return a.row != b.row ? a.row < b.row : a.col < b.col; });
  CsrMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  const Triplet* prev = nullptr;
  for (const Triplet& t : entries) {
    if (t.row < 0 || t.row >= rows || t.col < 0 || t.col >= cols) throw std::out_of_range("matrix entry out of range");
    if (prev != nullptr && prev->row == t.row && prev->col == t.col) {
      m.value.back() += t.value;  // duplicate of the previous entry
      continue;
    }
    prev = &t;
    m.col.push_back(t.col);
    m.value.push_back(t.value);
    ++m.row_ptr[static_cast<std::size_t>(t.row) + 1];
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) m.row_ptr[r + 1] += m.row_ptr[r];
  return m;
}

CsrMatrix graph_matrix(std::int64_t n, const std::vector<std::pair<std::int64_t, std::int64_t>>& edges) {
  std::vector<Triplet> t;
  t.reserve(edges.size() * 2);
  for (auto [a, b] : edges) {
    if (a == b) continue;
    t.push_back({a, b, 1.0});
    t.push_back({b, a, 1.0});
  }
  std::sort(t.begin(), t.end(),
            [](const Triplet& x, const Triplet& y) { return x.row != y.row ? x.row < y.row : x.col < y.col; });
  t.erase(std::unique(t.begin(), t.end(),
                      [](const Triplet& x, const Triplet& y) { return x.row == y.row && x.col == y.col; }),
          t.end());
  return to_csr(n, n, std::move(t));
}

}  // namespace nbrbench
