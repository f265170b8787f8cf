// The closed-form contents of every send block, so that a receiver can check
// each byte it got: byte i of block `key` in call `call` is byte (i mod 8) of
// the 64-bit word mix(key, i / 8, call). The key of an allgather block is its
// source rank; alltoall blocks have one key per (source, out-edge), see
// core/exchange.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nbrbench {

std::uint8_t expected_byte(std::uint64_t key, std::uint64_t index, std::uint64_t call);
void fill_block(std::uint8_t* p, std::size_t bytes, std::uint64_t key, std::uint64_t call);
// Index of the first byte that differs from the expectation, or `bytes`.
std::size_t first_mismatch(const std::uint8_t* p, std::size_t bytes, std::uint64_t key, std::uint64_t call);

// Guard bytes around receive areas: a fixed value that no call writes.
inline constexpr std::uint8_t kGuardByte = 0xA5;

// Values of the dense matrix B of the SpMM benchmark: exact in double
// (small integers over a power of two), distinct per (row, column, call).
double b_value(std::int64_t row, std::int64_t col, std::uint64_t call);

}  // namespace nbrbench
