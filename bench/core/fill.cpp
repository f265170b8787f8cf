#include "bench/core/fill.h"

#include <cstring>

namespace nbrbench {

namespace {

std::uint64_t mix(std::uint64_t key, std::uint64_t word, std::uint64_t call) {
  std::uint64_t z = key * 0x9E3779B97F4A7C15ULL ^ call * 0xD1B54A32D192ED03ULL ^ word * 0xBF58476D1CE4E5B9ULL;
  z ^= z >> 29;
  z *= 0x94D049BB133111EBULL;
  return z ^ (z >> 32);
}

std::uint8_t byte_of(std::uint64_t w, std::uint64_t i) {
  return static_cast<std::uint8_t>(w >> (8 * (i % 8)));
}

}  // namespace

std::uint8_t expected_byte(std::uint64_t key, std::uint64_t index, std::uint64_t call) {
  return byte_of(mix(key, index / 8, call), index);
}

void fill_block(std::uint8_t* p, std::size_t bytes, std::uint64_t key, std::uint64_t call) {
  const std::size_t words = bytes / 8;
  for (std::size_t w = 0; w < words; ++w) {
    std::uint8_t b[8];
    const std::uint64_t v = mix(key, w, call);
    for (std::uint64_t i = 0; i < 8; ++i) b[i] = byte_of(v, i);  // explicit little-endian layout
    std::memcpy(p + 8 * w, b, 8);
  }
  for (std::size_t i = 8 * words; i < bytes; ++i) p[i] = expected_byte(key, i, call);
}

std::size_t first_mismatch(const std::uint8_t* p, std::size_t bytes, std::uint64_t key, std::uint64_t call) {
  const std::size_t words = bytes / 8;
  for (std::size_t w = 0; w < words; ++w) {
    const std::uint64_t v = mix(key, w, call);
    for (std::uint64_t i = 0; i < 8; ++i)
      if (p[8 * w + i] != byte_of(v, i)) return 8 * w + i;
  }
  for (std::size_t i = 8 * words; i < bytes; ++i)
    if (p[i] != expected_byte(key, i, call)) return i;
  return bytes;
}

double b_value(std::int64_t row, std::int64_t col, std::uint64_t call) {
  const auto h = mix(static_cast<std::uint64_t>(row % 1000003), static_cast<std::uint64_t>(col), call);
  return static_cast<double>(static_cast<std::int64_t>(h % 2001) - 1000) / 64.0;
}

}  // namespace nbrbench
