#include "bench/core/mtx.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace nbrbench {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

[[noreturn]] void fail(long line, const std::string& what) {
  throw std::runtime_error("Matrix Market line " + std::to_string(line) + ": " + what);
}

}  // namespace

CsrMatrix read_matrix_market(std::istream& in) {
  std::string line;
  long lineno = 0;
  if (!std::getline(in, line)) fail(1, "empty input");
  ++lineno;
  std::istringstream hs(line);
  std::string banner, object, format, field, symmetry;
  hs >> banner >> object >> format >> field >> symmetry;
  if (lower(banner) != "%%matrixmarket" || lower(object) != "matrix") fail(lineno, "not a MatrixMarket matrix header");
  if (lower(format) != "coordinate") fail(lineno, "only the coordinate format is supported");
  field = lower(field);
  symmetry = lower(symmetry);
  const bool pattern = field == "pattern";
  if (field != "real" && field != "integer" && field != "double" && !pattern)
    fail(lineno, "unsupported field '" + field + "'");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
    fail(lineno, "unsupported symmetry '" + symmetry + "'");

  long long rows = -1, cols = -1, nnz = -1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ss(line);
    if (!(ss >> rows >> cols >> nnz) || rows < 0 || cols < 0 || nnz < 0) fail(lineno, "bad size line");
    break;
  }
  if (nnz < 0) fail(lineno, "missing size line");
  if (symmetry != "general" && rows != cols) fail(lineno, "symmetric matrix must be square");

  std::vector<Triplet> t;
  t.reserve(static_cast<std::size_t>(symmetry == "general" ? nnz : 2 * nnz));
  long long read = 0;
  while (read < nnz && std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ss(line);
    long long r = 0, c = 0;
    double v = 1.0;
    if (!(ss >> r >> c)) fail(lineno, "expected 'row col" + std::string(pattern ? "'" : " value'"));
    if (!pattern && !(ss >> v)) fail(lineno, "missing value");
    if (r < 1 || r > rows || c < 1 || c > cols) fail(lineno, "index out of range");
    t.push_back({r - 1, c - 1, v});
    if (symmetry != "general" && r != c) t.push_back({c - 1, r - 1, symmetry == "skew-symmetric" ? -v : v});
    ++read;
  }
  if (read < nnz) fail(lineno, "expected " + std::to_string(nnz) + " entries, found " + std::to_string(read));
  // Anything after the last entry but blank lines and comments is an entry
  // the header did not count: the file is not what its header says.
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    fail(lineno, "more entries than the " + std::to_string(nnz) + " the size line announces");
  }
  return to_csr(rows, cols, std::move(t));
}

CsrMatrix read_matrix_market_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open matrix file '" + path + "'");
  try {
    return read_matrix_market(f);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace nbrbench
