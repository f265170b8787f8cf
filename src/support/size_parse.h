// Byte sizes: the one parser of the library's variables (NBRCOLL_THRESHOLD,
// NBRCOLL_CHUNK) and the benchmarks' options (--sizes). A decimal integer
// with an optional unit, case-insensitive: B; K, KB, KiB; M, MB, MiB; G, GB,
// GiB; all powers of 1024 ("256K" = "256KB" = "256KiB" = 262144).
// Header-only so that the MPI-free benchmark helpers can use it too.
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nbrcoll {

inline std::optional<std::uint64_t> parse_byte_size(std::string_view s) {
  std::size_t i = 0;
  std::uint64_t v = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  std::string unit;
  for (const char c : s.substr(i)) unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit == "B") unit.clear();
  if (unit.size() == 3 && unit.substr(1) == "IB") unit.resize(1);
  if (unit.size() == 2 && unit[1] == 'B') unit.resize(1);
  int shift = 0;
  if (unit == "K") {
    shift = 10;
  } else if (unit == "M") {
    shift = 20;
  } else if (unit == "G") {
    shift = 30;
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  if (v > (UINT64_MAX >> shift)) return std::nullopt;
  return v << shift;
}

}  // namespace nbrcoll
