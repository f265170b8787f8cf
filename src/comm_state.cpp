#include "comm_state.h"

#include <mutex>
#include <new>

#include "log.h"

namespace nbrcoll {

namespace {

int g_keyval = MPI_KEYVAL_INVALID;

int copy_state(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  const auto* from = static_cast<const CommState*>(attribute_val_in);
  auto* copy = new (std::nothrow) CommState{from->info, MPI_COMM_NULL};
  *flag = copy != nullptr ? 1 : 0;
  *static_cast<void**>(attribute_val_out) = copy;
  return MPI_SUCCESS;
}

int delete_state(MPI_Comm, int, void* attribute_val, void*) {
  auto* state = static_cast<CommState*>(attribute_val);
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (state->private_comm != MPI_COMM_NULL && !finalized) PMPI_Comm_free(&state->private_comm);
  delete state;
  return MPI_SUCCESS;
}

// Frees the keyval at MPI_Finalize (MPI_COMM_SELF's attributes are deleted first thing there).
int free_keyval_at_finalize(MPI_Comm, int keyval, void*, void*) {
  if (g_keyval != MPI_KEYVAL_INVALID) PMPI_Comm_free_keyval(&g_keyval);
  PMPI_Comm_free_keyval(&keyval);
  return MPI_SUCCESS;
}

// Once per process (threads may create graphs concurrently under MPI_THREAD_MULTIPLE).
int ensure_keyval() {
  static std::once_flag once;
  static int result = MPI_SUCCESS;
  std::call_once(once, [] {
    result = PMPI_Comm_create_keyval(copy_state, delete_state, &g_keyval, nullptr);
    if (result != MPI_SUCCESS) return;
    int finalizer = MPI_KEYVAL_INVALID;
    result = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_keyval_at_finalize, &finalizer, nullptr);
    if (result == MPI_SUCCESS) result = PMPI_Comm_set_attr(MPI_COMM_SELF, finalizer, nullptr);
  });
  return result;
}

}  // namespace

int attach_state(MPI_Comm graph_comm, std::shared_ptr<const GraphInfo> info) {
  const int rc = ensure_keyval();
  if (rc != MPI_SUCCESS) return rc;
  auto* state = new CommState{std::move(info), MPI_COMM_NULL};
  return PMPI_Comm_set_attr(graph_comm, g_keyval, state);
}

CommState* find_state(MPI_Comm comm) {
  if (g_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
  void* value = nullptr;
  int flag = 0;
  if (PMPI_Comm_get_attr(comm, g_keyval, &value, &flag) != MPI_SUCCESS || !flag) return nullptr;
  return static_cast<CommState*>(value);
}

MPI_Comm private_comm(MPI_Comm comm, CommState& state) {
  if (state.private_comm == MPI_COMM_NULL) {
    // A split carries no topology and copies no attributes: no recursion into nbrcoll.
    if (PMPI_Comm_split(comm, 0, state.info->rank, &state.private_comm) != MPI_SUCCESS) return MPI_COMM_NULL;
    PMPI_Comm_set_errhandler(state.private_comm, MPI_ERRORS_RETURN);
  }
  return state.private_comm;
}

}  // namespace nbrcoll
