// `bytes` as one MPI message. MPI counts are ints: a fragment above INT_MAX
// bytes is one message of a derived type (whole GiB units plus the rest),
// still one message.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstdint>

#include "report/held_handles.h"

namespace nbrcoll {

class ByteMessage {
 public:
  explicit ByteMessage(std::uint64_t bytes) {
    if (bytes <= static_cast<std::uint64_t>(INT_MAX)) {
      count_ = static_cast<int>(bytes);
      return;
    }
    make_large(bytes);
  }
  ByteMessage(const ByteMessage&) = delete;
  ByteMessage& operator=(const ByteMessage&) = delete;
  // A datatype may be freed while operations that use it are pending.
  ~ByteMessage() {
    if (type_ != MPI_BYTE && PMPI_Type_free(&type_) == MPI_SUCCESS) report::note_freed(report::Handle::kDatatype);
  }
  [[nodiscard]] int count() const { return count_; }
  [[nodiscard]] MPI_Datatype type() const { return type_; }

 private:
  void make_large(std::uint64_t bytes);
  int count_ = 0;
  MPI_Datatype type_ = MPI_BYTE;
};

}  // namespace nbrcoll
