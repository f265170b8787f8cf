// Where the bytes of every block of one call live, as the engine sees them:
// the send blocks (allgather: one, this rank's own block; alltoall: one per
// out-list entry) and the receive slots (one per in-list entry), each an
// address and a size. The call's layout (call/layout.h) fills it from the
// user's buffers or from pack stages; the engine never sees a datatype.
#pragma once

#include <cstdint>
#include <vector>

namespace nbrcoll::engine {

struct BlockTable {
  std::vector<const char*> send_data;
  std::vector<std::uint64_t> send_bytes;
  std::vector<char*> slot_data;  // null for MPI_PROC_NULL slots and on a hollow rank
  std::vector<std::uint64_t> slot_bytes;
  // This rank could not prepare its buffers: every block is empty and
  // nowhere, yet it sends and receives one message per fragment, so that
  // its peers complete (and learn of it: their fragments come short).
  bool hollow = false;

  [[nodiscard]] const char* send(std::size_t block) const { return send_data[block]; }
  [[nodiscard]] std::uint64_t send_size(std::size_t block) const {
    return block < send_bytes.size() ? send_bytes[block] : 0;
  }
  // The block of `slot` (-1: this rank's own block, send block 0).
  [[nodiscard]] std::uint64_t block_size(int slot) const {
    return slot < 0 ? send_size(0) : slot_bytes[static_cast<std::size_t>(slot)];
  }
  [[nodiscard]] const char* block(int slot) const {
    return slot < 0 ? send_data[0] : slot_data[static_cast<std::size_t>(slot)];
  }
};

}  // namespace nbrcoll::engine
