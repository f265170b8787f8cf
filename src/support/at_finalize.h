// Work to do at MPI_Finalize while MPI still works: MPI_Finalize deletes
// MPI_COMM_SELF's attributes first thing, so each hook is such an
// attribute, whose delete callback runs `fn` and frees the hook's keyval
// (counted as held meanwhile, report/held_handles.h). Hooks run in the
// reverse order of their making, as the MPI deletes those attributes.
#pragma once

namespace nbrcoll {

// MPI_SUCCESS, or the MPI's error (then `fn` will not run).
int at_finalize(void (*fn)());

}  // namespace nbrcoll
