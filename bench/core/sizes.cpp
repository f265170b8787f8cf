#include "sizes.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace nbrbench {

std::uint64_t parse_size(const std::string& s) {
  std::size_t i = 0;
  std::uint64_t v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (v > (UINT64_MAX - 9) / 10) throw std::invalid_argument("size too large: '" + s + "'");
    v = v * 10 + static_cast<std::uint64_t>(s[i] - '0');
    ++i;
  }
  if (i == 0) throw std::invalid_argument("bad size '" + s + "'");
  std::string unit = s.substr(i);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit == "B") unit.clear();
  if (unit.size() > 1 && (unit.substr(1) == "IB" || unit.substr(1) == "B")) unit.resize(1);
  int shift = 0;
  if (unit.empty())
    shift = 0;
  else if (unit == "K")
    shift = 10;
  else if (unit == "M")
    shift = 20;
  else if (unit == "G")
    shift = 30;
  else
    throw std::invalid_argument("bad size unit in '" + s + "' (use K, M or G)");
  if (shift > 0 && v > (UINT64_MAX >> shift)) throw std::invalid_argument("size too large: '" + s + "'");
  return v << shift;
}

std::vector<std::uint64_t> parse_sizes(const std::string& spec) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, comma - start);
    if (item.empty()) throw std::invalid_argument("empty item in size list '" + spec + "'");
    if (const auto colon = item.find(':'); colon != std::string::npos) {
      const std::uint64_t lo = parse_size(item.substr(0, colon));
      const std::uint64_t hi = parse_size(item.substr(colon + 1));
      if (lo == 0 || lo > hi) throw std::invalid_argument("bad size range '" + item + "'");
      for (std::uint64_t s = lo; s <= hi; s *= 2) {
        out.push_back(s);
        if (s > UINT64_MAX / 2) break;
      }
    } else {
      out.push_back(parse_size(item));
    }
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string format_size(std::uint64_t bytes) {
  static const char* units[] = {"", "K", "M", "G"};
  int u = 0;
  while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

}  // namespace nbrbench
