// NBRCOLL_WATCHDOG=SECONDS: a diagnostic for hangs. Every nbrcoll call
// registers itself for its duration; a background thread prints one stderr
// line per rank whose call has run longer than the limit (and again each
// further period): the call, how long, and the peers this rank receives
// from and sends to in it. The ranks that print are inside that call; the
// ranks that do not have left it (or never came), so one run shows where a
// hang is. Off by default: then a call pays one branch.
#pragma once

#include <cstdint>

namespace nbrcoll {

struct GraphInfo;

// Registers a running call for the watchdog (nothing when it is off).
class WatchedCall {
 public:
  WatchedCall(const char* op, std::uint64_t call_number, const GraphInfo& info);
  ~WatchedCall();
  WatchedCall(const WatchedCall&) = delete;
  WatchedCall& operator=(const WatchedCall&) = delete;

 private:
  long id_ = -1;
};

}  // namespace nbrcoll
