// Whether the derived datatypes a remembered call named are still the
// types it described. A freed handle may come back as another type, so a
// repeat (call/repeat.h) may trust a handle only while the type it named
// lives. Each derived type a remembered call names carries an attribute of
// nbrcoll's; the MPI deletes it when the type goes, before its handle can
// name anything else, and the deletion counts one up. A repeat whose
// count is the one its call was remembered at names the same types: no
// type is described again (an alltoallw names a type per block).
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

// How many watched types the MPI has deleted so far.
std::uint64_t watched_types_gone();
// Marks `type` (predefined types need no mark: they never go). False where
// the MPI would not attach the mark: a call naming it is not remembered.
bool watch_type(MPI_Datatype type);

}  // namespace nbrcoll
