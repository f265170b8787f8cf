// Matrix Market reader: coordinate format, real / integer / pattern values,
// general / symmetric / skew-symmetric storage (one triangle is expanded to
// both). Throws std::runtime_error with the line number on anything else,
// including more entries than the size line says; the _file variant's
// messages start with the path.
#pragma once

#include <istream>
#include <string>

#include "bench/core/sparse.h"

namespace nbrbench {

CsrMatrix read_matrix_market(std::istream& in);
CsrMatrix read_matrix_market_file(const std::string& path);

}  // namespace nbrbench
