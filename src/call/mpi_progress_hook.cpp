#include "call/mpi_progress_hook.h"

#include <dlfcn.h>

#include "call/progress.h"

namespace nbrcoll {

namespace {

// Open MPI's opal_progress_register / opal_progress_unregister: int (*)(int (*)(void)).
using ProgressCallback = int (*)();
using Registrar = int (*)(ProgressCallback);

// Open MPI counts the events a callback reports; nbrcoll's are its own.
int advance_from_mpi() {
  progress_from_mpi();
  return 0;
}

bool g_hooked = false;

Registrar lookup(const char* name) {
  return reinterpret_cast<Registrar>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

bool hook_mpi_progress() {
  if (g_hooked) return true;
  const Registrar add = lookup("opal_progress_register");
  if (add == nullptr) return false;
  // The marks count from before the first pass of the loop can call in.
  detail::g_mpi_loop_advances.store(true);
  if (add(advance_from_mpi) != 0) {
    detail::g_mpi_loop_advances.store(false);
    return false;
  }
  g_hooked = true;
  return true;
}

void unhook_mpi_progress() {
  if (!g_hooked) return;
  if (const Registrar remove = lookup("opal_progress_unregister"); remove != nullptr) remove(advance_from_mpi);
  g_hooked = false;
  detail::g_mpi_loop_advances.store(false);
}

}  // namespace nbrcoll
