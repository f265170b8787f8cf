// How one call is going on this rank: its first error, and whether a short
// fragment was already reported (one warning line a call). Shared by the
// engine, its bundle flow and the host fast path.
#pragma once

#include <cstdint>

namespace nbrcoll::engine {

// 0 is success for every MPI (MPI_SUCCESS); the engine keeps the first
// other code it is given.
inline constexpr int kSuccess = 0;

class Outcome {
 public:
  int first_error = kSuccess;
  bool reported_short = false;
  void note(int rc) {
    if (rc != kSuccess && first_error == kSuccess) first_error = rc;
  }
  // Whether a fragment (a message, an IPC note's bytes, a bundle's piece)
  // that brought `got` of its `expected` bytes came short; the first of a
  // call is logged. A block must come whole: a sender that could not prepare
  // its buffers sends empty fragments so that nobody waits, a forwarder
  // passes on an empty fragment for one it did not get whole, and in an
  // erroneous program a sender's block may be shorter than the receiver's.
  // The receiver then reports an error instead of success with stale bytes.
  bool came_short(std::uint64_t got, std::uint64_t expected, int peer) {
    if (got >= expected) return false;
    report_short(expected, peer);
    return true;
  }

 private:
  void report_short(std::uint64_t expected, int peer);
};

}  // namespace nbrcoll::engine
