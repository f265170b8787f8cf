// Block-size specifications: "4096", "1K", "64M", "1G" (powers of 1024;
// the library's own parser, src/support/size_parse.h: "1KB" and "1KiB" too),
// "1K:64M" (every power of two from 1K to 64M), or comma lists of these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nbrbench {

// Throws std::invalid_argument on a malformed size.
std::uint64_t parse_size(const std::string& s);
// Sorted, without repeats. A range
// "A:B" yields A, 2A, 4A, ... up to B (A > 0).
std::vector<std::uint64_t> parse_sizes(const std::string& spec);
// 1024 -> "1K", 1536 -> "1536", 4194304 -> "4M".
std::string format_size(std::uint64_t bytes);

}  // namespace nbrbench
