// NBRCOLL_WATCHDOG=SECONDS: a diagnostic for hangs. Every blocking nbrcoll
// call registers itself for its duration; a background thread prints one
// stderr line per rank whose call has run longer than the limit (and again
// each further period): the call, how long, the peers this rank receives
// from and sends to in it, and the world ranks whose messages it still
// waits for (those its last blocking wait in the MPI had outstanding). The
// ranks that print are inside that call; the ranks that do not have left
// it (or never came, or died), so one run shows where a hang is. Off by
// default: then a call pays one branch.
#pragma once

#include <cstdint>
#include <vector>

namespace nbrcoll {

struct GraphInfo;

// Whether NBRCOLL_WATCHDOG is on (read once).
bool watchdog_on();

// Registers a running call for the watchdog (nothing when it is off).
class WatchedCall {
 public:
  WatchedCall(const char* op, std::uint64_t call_number, const GraphInfo& info);
  ~WatchedCall();
  WatchedCall(const WatchedCall&) = delete;
  WatchedCall& operator=(const WatchedCall&) = delete;

 private:
  long id_ = -1;
  long outer_ = -1;  // the call this thread was watched in before (restored at the end)
};

// The thread's watched call is about to block in the MPI for messages from
// `from` and to `to` (graph ranks of its communicator): what its next
// report names. Nothing outside a watched call.
void watchdog_waits_for(const std::vector<int>& from, const std::vector<int>& to);

}  // namespace nbrcoll
