// What one call adds to the run report (NBRCOLL_REPORT; src/report/): its
// kind, mode and plan and the time it spent inside nbrcoll, or why it went
// to the MPI; and, once its messages are done, the bytes its plan sent per
// link class beside the linear plan's (one message per edge, as the MPI's
// own linear algorithm sends). Called only where report::on() said so
// (call/collective.cpp, call/persistent.cpp): a run without the report
// never comes here.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "call/decision.h"
#include "call/user_call.h"

namespace nbrcoll {

class Operation;

// Nanoseconds since its construction (one steady_clock read at each end).
class CallClock {
 public:
  [[nodiscard]] std::uint64_t ns() const {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count());
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Without the report: nothing read.
struct NoClock {
  [[nodiscard]] static std::uint64_t ns() { return 0; }
};
template <bool kOn>
using CallClockIf = std::conditional_t<kOn, CallClock, NoClock>;

// A call nbrcoll ran (`op`, started), `ns` spent in it so far.
void tally_call(const UserCall& c, Mode mode, const Operation& op, std::uint64_t ns);
// The bytes of `op`, whose messages are done.
void tally_bytes(const Operation& op);
// A call handed to the MPI.
void tally_handoff(Handoff why);
// For a call the progress engine tracks (progress.h): `owner` (may be null)
// wrapped so that when the engine lets the completed call go, its bytes are
// added (the wrapper holds `op`, and so its scratch, until then).
std::shared_ptr<void> tally_bytes_at_end(std::shared_ptr<Operation> op, std::shared_ptr<void> owner);

}  // namespace nbrcoll
