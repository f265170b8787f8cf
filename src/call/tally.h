// What one call adds to the run report (NBRCOLL_REPORT; src/report/): its
// kind, mode and plan and the time it spent inside nbrcoll, or why it went
// to the MPI; and, once its messages are done, the bytes its plan sent per
// link class beside the linear plan's (one message per edge, as the MPI's
// own linear algorithm sends). Called only where report::on() said so
// (call/collective.cpp, call/persistent.cpp): a run without the report
// never comes here.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "call/decision.h"
#include "call/user_call.h"
#include "report/run_counters.h"
#include "support/ticks.h"

namespace nbrcoll {

class Operation;

// The bytes a call of one layout sends per link class (its plan's and the
// linear plan's), kept in its scratch for the next call of that layout.
struct TalliedBytes {
  std::uint64_t layout_generation = ~std::uint64_t{0};  // none yet
  report::LinkBytes bytes;
};

// Ticks since its construction (support/ticks.h: one read at each end),
// times the call's weight in the report's time sample (report::time_weight():
// most calls past a process's first few hundred read no clock at all).
class CallClock {
 public:
  [[nodiscard]] std::uint64_t ticks() const { return weight_ == 0 ? 0 : (ticks_now() - start_) * weight_; }

 private:
  unsigned weight_ = report::time_weight();
  std::uint64_t start_ = weight_ == 0 ? 0 : ticks_now();
};

// Without the report: nothing read.
struct NoClock {
  [[nodiscard]] static std::uint64_t ticks() { return 0; }
};
template <bool kOn>
using CallClockIf = std::conditional_t<kOn, CallClock, NoClock>;

// A call of `kind` nbrcoll ran (`op`, started), `ticks` spent in it so far.
void tally_call(Kind kind, Mode mode, const Operation& op, std::uint64_t ticks);
// The bytes of `op`, whose messages are done.
void tally_bytes(const Operation& op);
// A blocking call: tally_call and tally_bytes in one.
void tally_blocking_call(Kind kind, const Operation& op, std::uint64_t ticks);
// A call handed to the MPI.
void tally_handoff(Handoff why);
// For a call the progress engine tracks (progress.h): `owner` (may be null)
// wrapped so that when the engine lets the completed call go, its bytes are
// added (the wrapper holds `op`, and so its scratch, until then).
std::shared_ptr<void> tally_bytes_at_end(std::shared_ptr<Operation> op, std::shared_ptr<void> owner);

}  // namespace nbrcoll
