// Blocks the host fast path moves with the application's own datatype: one
// message per block, as the MPI's own linear algorithm sends it, where a
// byte message would need a pack stage on both ends (an MPI_Pack before the
// send, an MPI_Unpack after the receive). The call's layout
// (call/layout.cpp) fills it where decide() chose typed messages; an entry
// without a type is a byte block of the engine::BlockTable.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace nbrcoll {

struct TypedBlock {
  const void* base = nullptr;  // the buffer as the application passed it (MPI_BOTTOM too)
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  [[nodiscard]] bool typed() const { return type != MPI_DATATYPE_NULL; }
};

struct TypedBlocks {
  std::vector<TypedBlock> send;  // per send block
  std::vector<TypedBlock> slot;  // per receive slot
  bool any = false;
  [[nodiscard]] const TypedBlock* send_of(std::size_t block) const {
    return any && send[block].typed() ? &send[block] : nullptr;
  }
  [[nodiscard]] const TypedBlock* slot_of(std::size_t i) const { return any && slot[i].typed() ? &slot[i] : nullptr; }
};

}  // namespace nbrcoll
