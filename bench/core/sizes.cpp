#include "bench/core/sizes.h"

#include <algorithm>
#include <stdexcept>

#include "support/size_parse.h"

namespace nbrbench {

std::uint64_t parse_size(const std::string& s) {
  if (const auto v = nbrcoll::parse_byte_size(s)) return *v;
  throw std::invalid_argument("bad size '" + s + "' (bytes with an optional unit K, M or G: 256K, 256KB, 256KiB)");
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
