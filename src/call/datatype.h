// What a call's layout needs to know of an MPI datatype: its size, extent, and
// whether `count` elements lie in memory as size*count bytes in type-map order
// (then we move bytes in place; otherwise we pack and unpack with MPI).
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

struct TypeLayout {
  std::uint64_t size = 0;  // bytes of data in one element
  MPI_Aint extent = 0;     // stride between elements
  bool in_place = false;   // contiguous, type-map order = memory order, no gaps
};

// MPI_SUCCESS, or the error of the MPI query (an invalid datatype).
int describe_type(MPI_Datatype type, TypeLayout& out);

}  // namespace nbrcoll
