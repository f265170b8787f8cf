#include "bench/core/cli_numbers.h"

#include <cmath>
#include <stdexcept>

namespace nbrbench {

long long parse_integer(const std::string& flag, const std::string& v, long long lo, long long hi) {
  std::size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || x < lo || x > hi)
    throw std::invalid_argument(flag + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "], got '" + v + "'");
  return x;
}

double parse_positive(const std::string& flag, const std::string& v) {
  std::size_t used = 0;
  double x = 0;
  try {
    x = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || !std::isfinite(x) || x <= 0)
    throw std::invalid_argument(flag + ": expected a positive number, got '" + v + "'");
  return x;
}

}  // namespace nbrbench
