// A sparse matrix in compressed sparse row form, as the SpMM benchmark uses it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nbrbench {

struct Triplet {
  std::int64_t row = 0;
  std::int64_t col = 0;
  double value = 0.0;
};

struct CsrMatrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> row_ptr;  // rows + 1 entries
  std::vector<std::int64_t> col;      // sorted within each row
  std::vector<double> value;
  [[nodiscard]] std::int64_t nnz() const { return static_cast<std::int64_t>(col.size()); }
};

// 0-based triplets to CSR. Duplicates are summed (as Matrix Market readers do).
CsrMatrix to_csr(std::int64_t rows, std::int64_t cols, std::vector<Triplet> entries);

// Undirected graph on `n` vertices -> symmetric pattern matrix (value 1 for
// every stored entry, both triangles, no diagonal). Edges are 0-based pairs;
// repeated edges and self loops are dropped.
CsrMatrix graph_matrix(std::int64_t n, const std::vector<std::pair<std::int64_t, std::int64_t>>& edges);

}  // namespace nbrbench
