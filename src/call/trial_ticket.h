// A trial call's ticket (call/tuning.h), taken at its start: when it
// started, and for a nonblocking call what its time is for and where the
// time goes once the call is done, from whichever thread finds it done
// (call/progress.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "algos/tuner.h"

namespace nbrcoll {

// The times of a nonblocking tuner's trial calls, recorded by the handle's
// next call of the family (on the application's thread, which alone
// touches the tuner).
struct TrialInbox {
  std::mutex lock;
  std::vector<std::pair<algos::Tuner::Trial, std::uint64_t>> done;
  std::atomic<bool> filled{false};  // `done` may hold some: a call that finds it false takes no lock
};

struct TrialTicket {
  algos::Tuner::Trial trial;
  std::shared_ptr<TrialInbox> inbox;  // null: a blocking call's (or none)
  std::uint64_t started_ns = 0;
};

// The call of `ticket` is done now: its time goes to the inbox, and the
// ticket is spent.
void trial_done(TrialTicket& ticket);

}  // namespace nbrcoll
