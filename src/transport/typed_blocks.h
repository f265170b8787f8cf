// The blocks of a call as the MPI's own linear algorithm sends them: each
// send block and receive slot as the user gave it (address, count, datatype),
// for the host fast path (linear_run.h) when every rank runs the call there
// by a shared rule (call/decision.h: linear_everywhere). Messages then go
// typed on both ends, as in the user's own program: nothing is packed, and
// no rank can meet a peer that sends its block as bytes. Local copies (self
// and duplicate edges) still pack where a block is not in place, through
// copy_typed().
#pragma once

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "transport/pack_view.h"

namespace nbrcoll {

struct TypedBuffer {
  const void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  // Its messages carry the type. A block above INT_MAX bytes still travels
  // as bytes (and cannot be packed), and so does an empty one, whose type
  // may be any handle, MPI_DATATYPE_NULL included, under an MPI that checks
  // only the types of blocks with data (MPICH): an empty message matches
  // any receive, and a block with data sent to an empty slot is the
  // program's error either way.
  bool typed = false;
};

inline bool travels_typed(std::uint64_t bytes) {
  return bytes > 0 && bytes <= static_cast<std::uint64_t>(INT_MAX);
}

struct TypedBlocks {
  std::vector<TypedBuffer> sends;  // per send block (allgather: one)
  std::vector<TypedBuffer> slots;  // per receive slot
};

// A local copy between two typed blocks of `from_bytes` and `to_bytes`
// bytes: the source packed into `stage`, then unpacked into the target (as
// many whole elements of its type as the source's bytes fill, as a short
// message would). MPI_SUCCESS or the MPI's error.
inline int copy_typed(const TypedBuffer& from, std::uint64_t from_bytes, const TypedBuffer& to, std::uint64_t to_bytes,
                      std::vector<char>& stage) {
  if (from_bytes == 0 || to_bytes == 0) return MPI_SUCCESS;
  if (from_bytes > static_cast<std::uint64_t>(INT_MAX)) return MPI_ERR_COUNT;  // MPI_Pack counts bytes in an int
  stage.resize(from_bytes);
  int position = 0;
  const PackView in(from.buf, from.count, from.type);
  int rc =
      PMPI_Pack(in.base(), in.count(), in.type(), stage.data(), static_cast<int>(from_bytes), &position, MPI_COMM_SELF);
  if (rc != MPI_SUCCESS) return rc;
  int count = to.count;
  if (from_bytes < to_bytes) {
    int size = 0;
    rc = PMPI_Type_size(to.type, &size);
    if (rc != MPI_SUCCESS) return rc;
    count = size > 0 ? static_cast<int>(from_bytes / static_cast<std::uint64_t>(size)) : 0;
  }
  const std::uint64_t used = std::min(from_bytes, to_bytes);
  position = 0;
  const PackView out(to.buf, count, to.type);
  return PMPI_Unpack(stage.data(), static_cast<int>(used), &position, out.base(), out.count(), out.type(),
                     MPI_COMM_SELF);
}

}  // namespace nbrcoll
