// The host fast path's messages kept as persistent requests (MPI_Recv_init,
// MPI_Send_init) for calls that repeat: a halo exchange makes the same call,
// same buffers and counts, every iteration. Starting kept requests costs the
// MPI less than posting new ones (no argument checks, no request allocated
// and freed per message): with 4-8 ranks to a core that is a tenth of a
// small call (bench/RESULTS.md). A set belongs to one scratch and stands
// for one layout of it (its generation) on one channel and tag window;
// LinearRun builds it on the layout's second run and starts it on later
// ones. Sets still standing at MPI_Finalize are freed there.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "transport/requests.h"

namespace nbrcoll {

// What a set of messages was posted for: the scratch's layout generation,
// the communicator and the first tag of the call's window.
struct StandingKey {
  std::uint64_t generation = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  int tag_offset = 0;
  friend bool operator==(const StandingKey&, const StandingKey&) = default;
};

class StandingMessages {
 public:
  StandingMessages() = default;
  StandingMessages(const StandingMessages&) = delete;
  StandingMessages& operator=(const StandingMessages&) = delete;
  ~StandingMessages();

  [[nodiscard]] bool ready_for(const StandingKey& key) const { return built_ && key_ == key; }
  // Frees the old set, if any, and hands out an empty one to fill with
  // persistent requests (MpiRequests::add_plain) for `key`.
  MpiRequests& rebuild(const StandingKey& key);
  // Starts every request of the set (MPI_Startall), in the order added.
  int start();
  [[nodiscard]] MpiRequests& requests() { return requests_; }
  // Frees every request (all inactive: no call is running on the set).
  void release();

  // Every set still built, at MPI_Finalize (completion.cpp).
  static void release_all();

 private:
  MpiRequests requests_;
  StandingKey key_;
  bool built_ = false;
};

}  // namespace nbrcoll
