// The bytes a completed receive brought, read from its MPI_Status. Open MPI
// and MPICH keep the byte count in public fields of their MPI_Status (Open
// MPI: _ucount; MPICH: count_lo plus count_hi_and_cancelled above its
// cancelled bit), which costs a few instructions where MPI_Get_count costs
// about 45 (callgrind, Open MPI 4.1.4), and every call of nbrcoll's reads one
// per receive (the transports and the host fast path). Any other MPI: MPI_Get_elements_x
// of MPI_BYTE. tests/mpi/status_bytes.cpp checks the first two against it.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

inline std::uint64_t status_bytes(const MPI_Status& status) {
#if defined(OPEN_MPI)
  return static_cast<std::uint64_t>(status._ucount);
#elif defined(MPICH)
  const auto high = static_cast<std::uint64_t>(static_cast<unsigned>(status.count_hi_and_cancelled) >> 1);
  return (high << (8 * sizeof(int))) + static_cast<unsigned>(status.count_lo);
#else
  MPI_Count got = 0;
  if (PMPI_Get_elements_x(&status, MPI_BYTE, &got) != MPI_SUCCESS || got < 0) return 0;
  return static_cast<std::uint64_t>(got);
#endif
}

}  // namespace nbrcoll
