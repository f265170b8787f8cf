#include "bench/core/exchange.h"

#include <sstream>
#include <stdexcept>

#include "bench/core/fill.h"

namespace nbrbench {

std::optional<Op> parse_op(const std::string& name) {
  if (name == "allgather") return Op::kAllgather;
  if (name == "allgatherv") return Op::kAllgatherv;
  if (name == "alltoall") return Op::kAlltoall;
  if (name == "alltoallv") return Op::kAlltoallv;
  return std::nullopt;
}

std::string op_name(Op op, Mode mode) {
  static const char* const kBase[] = {"neighbor_allgather", "neighbor_allgatherv", "neighbor_alltoall",
                                      "neighbor_alltoallv"};
  const std::string base = kBase[static_cast<int>(op)];
  if (mode == Mode::kNonblocking) return "i" + base;
  if (mode == Mode::kPersistent) return base + "_init";
  return base;
}

bool per_edge(Op op) {
  return op == Op::kAlltoall || op == Op::kAlltoallv;
}

std::uint64_t block_bytes(Op op, std::uint64_t size, int sender, std::size_t out_index) {
  if (op == Op::kAllgather || op == Op::kAlltoall) return size;
  // allgatherv: one block for every out-edge, so the edge does not count.
  const std::uint64_t edge = per_edge(op) ? out_index : 0;
  const std::uint64_t q = 1 + (7 * static_cast<std::uint64_t>(sender) + 3 * edge) % 4;
  return (size * q + 3) / 4;
}

std::uint64_t block_key(Op op, int sender, std::size_t out_index) {
  const auto s = static_cast<std::uint64_t>(sender);
  return per_edge(op) ? s + ((static_cast<std::uint64_t>(out_index) + 1) << 32) : s;
}

std::size_t matching_out_index(const Graph& g, int me, std::size_t in_index) {
  const auto& in = g.in[static_cast<std::size_t>(me)];
  const int src = in[in_index];
  std::size_t repeat = 0;
  for (std::size_t k = 0; k < in_index; ++k) repeat += in[k] == src ? 1 : 0;
  const auto& out = g.out[static_cast<std::size_t>(src)];
  for (std::size_t j = 0; j < out.size(); ++j)
    if (out[j] == me && repeat-- == 0) return j;
  throw std::logic_error("graph: in-edge without a matching out-edge");
}

Exchange layout_exchange(Op op, const Graph& g, int me, std::uint64_t size, std::size_t guard) {
  const auto self = static_cast<std::size_t>(me);
  Exchange ex;
  ex.guard = guard;
  // allgather(v) sends one block (its out-edge 0 size); alltoall(v) one per out-edge.
  const std::size_t sends = per_edge(op) ? g.out[self].size() : 1;
  for (std::size_t j = 0; j < sends; ++j) {
    const int dst = per_edge(op) ? g.out[self][j] : -1;
    const auto bytes = static_cast<std::size_t>(block_bytes(op, size, me, j));
    ex.send.push_back({ex.send_bytes, bytes, block_key(op, me, j), dst, j});
    ex.send_bytes += bytes;
  }
  // Guards between blocks only where displacements are free (the v-variants).
  const bool gaps = op == Op::kAllgatherv || op == Op::kAlltoallv;
  std::size_t at = guard;
  for (std::size_t k = 0; k < g.in[self].size(); ++k) {
    const int src = g.in[self][k];
    const std::size_t j = per_edge(op) ? matching_out_index(g, me, k) : 0;
    const auto bytes = static_cast<std::size_t>(block_bytes(op, size, src, j));
    if (gaps && k > 0) at += guard;
    ex.recv.push_back({at, bytes, block_key(op, src, j), src, j});
    at += bytes;
  }
  ex.recv_bytes = at + guard;
  return ex;
}

std::optional<std::string> check_received(const std::uint8_t* area, const Exchange& ex, std::uint64_t call) {
  std::size_t at = 0;  // bytes before `at` checked
  auto guard_until = [&](std::size_t end) -> std::optional<std::string> {
    for (; at < end; ++at)
      if (area[at] != kGuardByte)
        return "guard byte at offset " + std::to_string(at) + " of the receive area overwritten";
    return std::nullopt;
  };
  for (std::size_t k = 0; k < ex.recv.size(); ++k) {
    const Block& b = ex.recv[k];
    if (auto bad = guard_until(b.offset)) return bad;
    const std::size_t i = first_mismatch(area + b.offset, b.bytes, b.key, call);
    if (i < b.bytes) {
      std::ostringstream s;
      s << "slot " << k << " (source rank " << b.peer << ", its out-edge " << b.edge << ") byte " << i << " is "
        << static_cast<int>(area[b.offset + i]) << ", expected " << static_cast<int>(expected_byte(b.key, i, call));
      return s.str();
    }
    at = b.offset + b.bytes;
  }
  return guard_until(ex.recv_bytes);
}

}  // namespace nbrbench
