#include "call/mpi_progress_hook.h"

#include <dlfcn.h>

#include "call/deferred_agreement.h"
#include "call/progress.h"
#include "state/late_plans.h"

namespace nbrcoll {

namespace {

// Open MPI's opal_progress_register / opal_progress_unregister: int (*)(int (*)(void)).
using ProgressCallback = int (*)();
using Registrar = int (*)(ProgressCallback);

// Called in every pass of the MPI's progress loop: advances the calls in
// flight and looks at the graphs' plannings (state/late_plans.h) and the
// tuners' agreements (call/deferred_agreement.h), unless
// this thread advances them itself already (AdvancingHere).
// Open MPI counts the events a callback reports; nbrcoll's are its own.
int advance_from_mpi() {
  if (detail::t_advancing != 0) return 0;
  if (calls_in_flight()) progress_all();
  look_at_late_planning();
  look_at_deferred_agreements();
  return 0;
}

bool hooked() {
  return detail::g_mpi_loop_advances.load();
}

Registrar lookup(const char* name) {
  return reinterpret_cast<Registrar>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

bool hook_mpi_progress() {
  if (hooked()) return true;
  const Registrar add = lookup("opal_progress_register");
  if (add == nullptr) return false;
  // The marks count from before the first pass of the loop can call in.
  detail::g_mpi_loop_advances.store(true);
  if (add(advance_from_mpi) == 0) return true;
  detail::g_mpi_loop_advances.store(false);
  return false;
}

void unhook_mpi_progress() {
  if (!hooked()) return;
  if (const Registrar remove = lookup("opal_progress_unregister"); remove != nullptr) remove(advance_from_mpi);
  detail::g_mpi_loop_advances.store(false);
}

}  // namespace nbrcoll
