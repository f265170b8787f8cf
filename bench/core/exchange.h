// What one neighbourhood collective of nbrcoll-bench moves on one rank: the
// operation and its mode, the size and fill key of every block, and where
// each block lies in the send and receive areas; and the check of a received
// area against it. Pure: no MPI, unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/graph.h"

namespace nbrbench {

enum class Op { kAllgather, kAllgatherv, kAlltoall, kAlltoallv };
enum class Mode { kBlocking, kNonblocking, kPersistent };

// "allgather", "allgatherv", "alltoall", "alltoallv".
std::optional<Op> parse_op(const std::string& name);
// The MPI function without "MPI_", lower case: "neighbor_allgather",
// "ineighbor_alltoallv", "neighbor_alltoall_init". The CSV's op column.
std::string op_name(Op op, Mode mode);
// alltoall(v): a block of its own for every out-edge.
bool per_edge(Op op);

// Bytes `sender` sends on its out-edge `out_index` at nominal block size
// `size`: `size` for allgather and alltoall; for the v-variants
// ceil(size * q / 4) with q = 1 + (7 * sender + 3 * out_index) mod 4, so
// neighbouring ranks and edges send a quarter, half, three quarters or all
// of it (allgatherv: out_index ignored, one block for all out-edges).
std::uint64_t block_bytes(Op op, std::uint64_t size, int sender, std::size_t out_index);

// Fill key (core/fill.h) of that block: the sender's rank for allgather(v)
// (one block for every out-edge); sender + (out_index + 1) * 2^32 for
// alltoall(v), distinct for every edge, so a block in the wrong slot shows.
std::uint64_t block_key(Op op, int sender, std::size_t out_index);

// The out-edge of source s = g.in[me][in_index] that feeds that slot of `me`:
// the l-th repeat of s in me's in-list is the l-th repeat of me in s's
// out-list (an MPI matches the messages of one pair in order).
std::size_t matching_out_index(const Graph& g, int me, std::size_t in_index);

struct Block {
  std::size_t offset = 0;  // in the area (receive: guards included)
  std::size_t bytes = 0;
  std::uint64_t key = 0;
  int peer = 0;          // receive: the source; send: the destination
  std::size_t edge = 0;  // the sender's out-edge index
};

// This rank's side of one call. Send blocks lie back to back (allgather(v):
// one block). The receive area has `guard` bytes before and after the
// blocks and, for the v-variants, between them; the MPI's receive buffer is
// area + guard, displacements relative to it.
struct Exchange {
  std::vector<Block> send;
  std::vector<Block> recv;  // one per in-edge, in in-list order
  std::size_t send_bytes = 0;
  std::size_t recv_bytes = 0;
  std::size_t guard = 0;
};
Exchange layout_exchange(Op op, const Graph& g, int me, std::uint64_t size, std::size_t guard);

// Every byte of the receive area: each block as its sender filled it in call
// `call`, every other byte kGuardByte. The first fault in words, or nothing.
std::optional<std::string> check_received(const std::uint8_t* area, const Exchange& ex, std::uint64_t call);

}  // namespace nbrbench
