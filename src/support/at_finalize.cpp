#include "support/at_finalize.h"

#include <mpi.h>

#include "report/held_handles.h"

namespace nbrcoll {

namespace {

struct Hook {
  void (*fn)();
};

int run_hook(MPI_Comm, int keyval, void* value, void*) {
  auto* hook = static_cast<Hook*>(value);
  hook->fn();
  delete hook;
  if (PMPI_Comm_free_keyval(&keyval) == MPI_SUCCESS) report::note_freed(report::Handle::kKeyval);
  return MPI_SUCCESS;
}

}  // namespace

int at_finalize(void (*fn)()) {
  int keyval = MPI_KEYVAL_INVALID;
  int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_hook, &keyval, nullptr);
  if (rc != MPI_SUCCESS) return rc;
  report::note_made(report::Handle::kKeyval);
  auto* hook = new Hook{fn};
  rc = PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, hook);
  if (rc != MPI_SUCCESS) {
    delete hook;
    if (PMPI_Comm_free_keyval(&keyval) == MPI_SUCCESS) report::note_freed(report::Handle::kKeyval);
  }
  return rc;
}

}  // namespace nbrcoll
