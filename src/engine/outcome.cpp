#include "engine/outcome.h"

#include "support/log.h"

namespace nbrcoll::engine {

void Outcome::report_short(std::uint64_t expected, int peer) {
  if (!reported_short) {
    reported_short = true;
    log(LogLevel::kWarn,
        "a fragment of %llu bytes from rank %d came short: its block is incomplete here (a rank could not "
        "prepare its buffers, or the block is shorter at its sender than in this rank's receive)",
        static_cast<unsigned long long>(expected), peer);
  }
}

}  // namespace nbrcoll::engine
