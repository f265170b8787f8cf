// `count` elements of `type` at `buf` as MPI_Pack and MPI_Unpack take them
// (PackView), and buffer addresses from a base and a byte offset, MPI_BOTTOM
// (a null base with absolute displacements) included.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "report/held_handles.h"

namespace nbrcoll {

// `base` + `offset` bytes as an address, also for MPI_BOTTOM (a null base
// with absolute displacements in the datatype): integer arithmetic, since
// pointer arithmetic on a null base is undefined.
inline char* offset_address(const void* base, MPI_Aint offset) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an absolute address is an integer
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(offset));
}

// `count` elements of `type` at `buf`, as MPI_Pack / MPI_Unpack take them.
// MPI_BOTTOM (a null buffer with absolute addresses in the type) is valid
// there, but MPICH 4.0 rejects a null buffer: it is then addressed through a
// view whose base is the type's true lower bound, the same bytes.
class PackView {
 public:
  PackView(const void* buf, int count, MPI_Datatype type) : base_(const_cast<void*>(buf)), count_(count), type_(type) {
    if (buf != nullptr || count == 0) return;
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    PMPI_Type_get_true_extent(type, &lb, &extent);
    const MPI_Aint shift = -lb;
    if (PMPI_Type_create_struct(1, &count, &shift, &type, &view_) == MPI_SUCCESS)
      report::note_made(report::Handle::kDatatype);
    PMPI_Type_commit(&view_);
    base_ = offset_address(nullptr, lb);
    count_ = 1;
    type_ = view_;
  }
  PackView(const PackView&) = delete;
  PackView& operator=(const PackView&) = delete;
  ~PackView() {
    if (view_ != MPI_DATATYPE_NULL && PMPI_Type_free(&view_) == MPI_SUCCESS)
      report::note_freed(report::Handle::kDatatype);
  }
  [[nodiscard]] void* base() const { return base_; }
  [[nodiscard]] int count() const { return count_; }
  [[nodiscard]] MPI_Datatype type() const { return type_; }

 private:
  void* base_;
  int count_;
  MPI_Datatype type_;
  MPI_Datatype view_ = MPI_DATATYPE_NULL;
};

}  // namespace nbrcoll
