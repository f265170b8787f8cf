// The measured choice of `auto` on a communicator handle (algos/tuner.h
// has the rule): a tuner per handle, per family of calls (allgathers,
// alltoalls) and per mode (blocking, nonblocking), made at its first
// tunable call, and the agreement that takes the slowest rank's times.
// Tunable: a call under auto, with the cost model, across nodes, on the
// host, where NBRCOLL_TUNE is on; blocking calls, and nonblocking ones
// where a progress thread forwards in every process (decide.cpp says which
// calls reach it). Every rank makes the same calls on a handle in the same
// order, so every rank takes each agreement's steps at the same calls.
//  - Blocking calls agree by a blocking allreduce over the graph
//    communicator at the call the tuner names, and each trial call's time
//    is that call's.
//  - A nonblocking call's time runs from its start to the moment nbrcoll
//    finds it done (whatever the application did meanwhile), on whichever
//    thread that is; it goes to the tuner with the trial ticket its start
//    took, at the handle's next call of the family. Its agreement must not
//    wait for peers at the start: a MAX reduction on the handle's channel
//    (state/channel_max.h, under its ack tag, which host processes never
//    send on otherwise) started a few calls after the nominal one (so that
//    the calls in flight there report first), looked at by each call on
//    the handle after it, and completed where the tuner settles, some
//    calls later (algos::AgreementDeferral; call/deferred_agreement.h).
//    One such reduction is in flight per handle: the other family's,
//    still in flight where one is due, is completed and settled first.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "algos/tuner.h"
#include "call/deferred_agreement.h"
#include "call/trial_ticket.h"
#include "state/comm_state.h"

namespace nbrcoll {

struct HandleTuning {
  std::shared_ptr<const GraphInfo> info;  // whose tables the tuners read
  std::optional<algos::Tuner> gather;     // blocking calls'
  std::optional<algos::Tuner> alltoall;
  std::optional<algos::Tuner> nonblocking_gather;
  std::optional<algos::Tuner> nonblocking_alltoall;
  // Where forwarding moves only inside MPI calls: what the nonblocking
  // allgathers' tuner predicts and offers (the info's tables without
  // aggregated; below algos::kForwardedNonblockingBlock, linear).
  algos::CostTable loop_model;
  algos::CostTable loop_offered;
  std::shared_ptr<TrialInbox> inbox[2];        // the nonblocking tuners' (gather, alltoall)
  std::unique_ptr<DeferredAgreement> pending;  // the nonblocking tuners' agreement in flight
};

// The handle's tuner for the family of `alltoall` and the mode, made on
// first use (and anew when the handle took a planned graph: late_plans.h);
// nullptr where NBRCOLL_TUNE is off.
algos::Tuner* tuner_for(CommState& state, bool alltoall, bool nonblocking = false);

// The handle's tuner for the family of `alltoall` and the mode if one was
// made for the graph it holds now; nullptr otherwise (for the
// introspection).
const algos::Tuner* existing_tuner(const CommState& state, bool alltoall, bool nonblocking = false);

// The agreement, where the tuner says one is due: the maximum of every
// rank's payload over `graph_comm`, and the tuner settles on it. At NBRCOLL_DEBUG=info the graph's
// rank 0 says what each settled size took and why, one line each.
void agree_if_due(algos::Tuner& tuner, MPI_Comm graph_comm, const GraphInfo& info, bool alltoall);

// A nonblocking tuned call's steps, after begin_call() (a repeat of a kept
// decision too): records the times of the family's calls done since,
// settles the agreement in flight where it is due (completing its
// reduction), or looks at it once, and starts the reduction of one that
// is due.
void agree_deferred(CommState& state, algos::Tuner& tuner, bool alltoall);

// A trial call's ticket (call/trial_ticket.h), taken at its start, now: a
// blocking call's holds only the time (its end_call() follows at once), a
// nonblocking call's the trial and the inbox its time goes to too.
TrialTicket take_trial_ticket(CommState& state, algos::Tuner& tuner, bool alltoall, bool nonblocking);

// Monotonic nanoseconds, for a trial call's time.
std::uint64_t tuning_clock_ns();

// Whether the handle's calls may still change plan by themselves: it plans
// late and has not yet, or a tuner tries, has met a size it has not
// settled, or has met a settled aggregated size in a mixed call that it
// will try again. This rank's view (a benchmark asks every rank before it
// times).
bool tuning_busy(const CommState& state);
// Whether every tuner the handle has made is closed (none: true): its
// calls' plans no longer change by themselves, nor do their kept messages.
bool tuning_closed(const CommState& state);

}  // namespace nbrcoll
