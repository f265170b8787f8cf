// A nonblocking tuner's agreement in flight (call/tuning.h): a MAX
// reduction of its payload on the handle's channel (state/channel_max.h),
// started at one call, looked at by later ones and completed at the call
// where the tuner settles. A rank that completes one may wait for a peer
// whose rounds it needs, and that peer may be waiting, in the same way, on
// another handle's agreement this rank has started: so a rank that waits
// looks at every agreement of the process meanwhile, and so does the MPI's
// progress loop (NBRCOLL_PROGRESS=mpi) for a rank blocked in any MPI call.
// Every rank of the graph starts each agreement at the same call.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "state/channel_max.h"

namespace nbrcoll {

class DeferredAgreement {
 public:
  DeferredAgreement(bool alltoall, std::vector<std::int64_t> terms) : alltoall_(alltoall), terms_(std::move(terms)) {}
  DeferredAgreement(const DeferredAgreement&) = delete;
  DeferredAgreement& operator=(const DeferredAgreement&) = delete;
  ~DeferredAgreement();  // completes it (every peer started it too)

  // Starts the reduction over the graph's `size` ranks (`comm_rank`: graph
  // rank -> channel rank, or null) under `tag`, and lets the looks find it.
  void start(MPI_Comm channel, int rank, int size, const std::vector<int>* comm_rank, int tag);
  // One look without waiting (none where this thread or another steps it).
  void look();
  // Completes it, looking at the process's other agreements meanwhile:
  // the maximum of every rank's terms, or all zeros where it failed (one
  // warning).
  const std::vector<std::int64_t>& complete();
  [[nodiscard]] bool alltoall() const { return alltoall_; }

 private:
  friend bool look_at_others(const DeferredAgreement* skip);
  bool poll_locked();  // one poll under lock_; whether it is over

  std::mutex lock_;  // whoever steps it: its handle's call, a look, a waiting rank
  bool alltoall_;
  std::vector<std::int64_t> terms_;  // this rank's payload, reduced in place
  int started_ = MPI_ERR_OTHER;      // what starting the reduction returned
  bool registered_ = false;          // started, and in the looks' registry
  bool completed_ = false;           // complete() returned
  ChannelMax reduce_;
};

// From the MPI's progress loop: one look at every agreement in flight in
// the process, unless this thread steps one already. Costs one load where
// none is.
void look_at_deferred_agreements();

// At MPI_Finalize, before the MPI's: completes every agreement in flight
// (handles never freed; every rank of such a graph started it).
void finish_deferred_agreements();

}  // namespace nbrcoll
