// Diagnostics: one line each on stderr, prefixed with the rank, behind
// NBRCOLL_DEBUG. The library never writes to stdout.
#pragma once

#include "support/config.h"

namespace nbrcoll {

void set_log_level(LogLevel level);
// The rank lines are prefixed with: the MPI_Init wrappers set the world
// rank; before that (or where the MPI was initialised elsewhere) the
// launcher's environment says it, else -1. No MPI call: the engine and the
// configuration log without MPI.
void set_log_rank(int world_rank);
bool log_enabled(LogLevel level);
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace nbrcoll
