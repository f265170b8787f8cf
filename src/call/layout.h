// Where the bytes of every block of one call live: the user's buffers where
// the datatypes allow it (in-order contiguous types), a packed stage
// otherwise (the MPI packs and unpacks with MPI_Pack / MPI_Unpack). With a
// datatype per block (alltoallw) that holds block by block: each send block
// and receive slot in place or packed as its own type allows. The engine
// sees only the resulting table of addresses and sizes (blocks()).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "call/arguments.h"
#include "call/datatype.h"
#include "engine/blocks.h"
#include "transport/pack_view.h"
#include "transport/typed_blocks.h"

namespace nbrcoll {

class CallLayout {
 public:
  // Block sizes only (no allocation): what the variant of every block and
  // the byte ranges are computed from. MPI_SUCCESS or the error of a type query.
  int measure(const CallArgs& args, const std::vector<int>& in_list);
  // Pack buffers and the packed send blocks; with `typed`, also every block
  // as the user gave it (typed()), and those that travel typed are neither
  // packed nor staged. MPI_SUCCESS or an error; after an error the layout is
  // hollow (see make_hollow).
  int prepare(const CallArgs& args, const std::vector<int>& in_list, bool typed = false);
  // Every block empty and nowhere: the rank still sends and receives one
  // message per fragment (so its peers complete), moving no bytes.
  void make_hollow();
  // After the call's run: staged receive blocks unpacked into the user's buffer.
  int unpack(const CallArgs& args) const;
  // Lets the pack stages' memory go (a scratch kept for another handle).
  void release_stages() {
    send_stage_ = {};
    recv_stage_ = {};
  }

  [[nodiscard]] const engine::BlockTable& blocks() const { return blocks_; }
  // Every block as the user gave it: after prepare(..., typed) only, else null.
  [[nodiscard]] const TypedBlocks* typed() const { return typed_mode_ ? &typed_ : nullptr; }
  [[nodiscard]] std::uint64_t send_bytes(std::size_t block = 0) const { return blocks_.send_size(block); }
  [[nodiscard]] std::uint64_t slot_bytes(std::size_t slot) const { return blocks_.slot_bytes[slot]; }
  // Some block of the side is packed (staged) when laid out as prepare()'s
  // `typed` says: typed, only a block too large to travel typed.
  [[nodiscard]] bool send_packed(bool typed = false) const {
    return typed ? typed_send_packed_ : per_block_ ? any_send_packed_ : !send_type_.in_place;
  }
  [[nodiscard]] bool recv_packed(bool typed = false) const {
    return typed ? typed_recv_packed_ : per_block_ ? any_recv_packed_ : !recv_type_.in_place;
  }
  // The call's one send and receive type as measure() described them (not alltoallw).
  [[nodiscard]] const TypeLayout& send_type() const { return send_type_; }
  [[nodiscard]] const TypeLayout& recv_type() const { return recv_type_; }

 private:
  TypeLayout send_type_;  // the call's one type (not alltoallw)
  TypeLayout recv_type_;
  bool per_block_ = false;  // alltoallw: a type per block (CallArgs::send_layouts, recv_layouts)
  bool any_send_packed_ = false;
  bool any_recv_packed_ = false;
  bool typed_send_packed_ = false;  // send_packed(true), recv_packed(true)
  bool typed_recv_packed_ = false;
  engine::BlockTable blocks_;
  bool typed_mode_ = false;  // prepare(..., typed) laid it out
  TypedBlocks typed_;
  std::vector<char> send_stage_;
  std::vector<char> recv_stage_;
};

}  // namespace nbrcoll
