#include "call/type_watch.h"

#include <atomic>
#include <mutex>

#include "report/held_handles.h"
#include "support/at_finalize.h"

namespace nbrcoll {

namespace {

std::atomic<std::uint64_t> g_gone{0};
int g_type_keyval = MPI_KEYVAL_INVALID;

int count_gone(MPI_Datatype, int, void*, void*) {
  g_gone.fetch_add(1, std::memory_order_acq_rel);
  return MPI_SUCCESS;
}

// The mark's keyval, made once per process (calls may come from several threads).
int type_keyval() {
  static std::once_flag once;
  std::call_once(once, [] {
    int made = MPI_KEYVAL_INVALID;
    // Not copied: a duplicate is another type, with a handle of its own.
    if (PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, count_gone, &made, nullptr) != MPI_SUCCESS) return;
    report::note_made(report::Handle::kKeyval);
    g_type_keyval = made;
    // A type still marked then keeps its mark until it goes.
    at_finalize([] {
      if (PMPI_Type_free_keyval(&g_type_keyval) == MPI_SUCCESS) report::note_freed(report::Handle::kKeyval);
    });
  });
  return g_type_keyval;
}

}  // namespace

std::uint64_t watched_types_gone() {
  return g_gone.load(std::memory_order_acquire);
}

bool watch_type(MPI_Datatype type) {
  int ni = 0;
  int na = 0;
  int nd = 0;
  int combiner = 0;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return false;
  if (combiner == MPI_COMBINER_NAMED) return true;
  const int keyval = type_keyval();
  if (keyval == MPI_KEYVAL_INVALID) return false;
  void* value = nullptr;
  int marked = 0;
  if (PMPI_Type_get_attr(type, keyval, &value, &marked) != MPI_SUCCESS) return false;
  // Set once: setting it again would delete the old mark and count a type gone.
  return marked != 0 || PMPI_Type_set_attr(type, keyval, nullptr) == MPI_SUCCESS;
}

}  // namespace nbrcoll
