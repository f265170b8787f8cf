// Diagnostics: one line each on stderr, prefixed with the rank, behind
// NBRCOLL_DEBUG. The library never writes to stdout.
#pragma once

#include "support/config.h"

namespace nbrcoll {

void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace nbrcoll
