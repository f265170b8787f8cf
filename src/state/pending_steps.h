// Collective steps a communicator handle starts at one of its calls and
// completes at a later one (a late plan's node lists and agreement:
// late_plans.h; the hand-off vote: handoff_vote.h). Each is completed by
// that later call, by its destructor where the handle is freed first, or
// at MPI_Finalize for handles never freed: its peers may need this rank's
// part though this rank never calls again.
#pragma once

#include <memory>

namespace nbrcoll {

class PendingStep {
 public:
  PendingStep() = default;
  PendingStep(const PendingStep&) = delete;
  PendingStep& operator=(const PendingStep&) = delete;
  virtual ~PendingStep() = default;
  // Completes what is still in flight; may be called again.
  virtual void settle() = 0;

 protected:
  // settle(), unless MPI_Finalize has run: for the destructors of final
  // classes (the handle freed before the call that completes the step).
  void settle_while_mpi_lives();
};

// Remembered, weakly, for settle_pending_steps.
void track_pending_step(const std::shared_ptr<PendingStep>& step);

// At MPI_Finalize, before the MPI's: settles every step still alive.
void settle_pending_steps();

// Whether a step may leave a nonblocking collective pending on a graph
// communicator between calls. Not under MPICH: it defers a communicator's
// attribute delete callback while a request on it is pending, so a graph
// freed before the call that completes the step would never reach
// nbrcoll's callback (which completes the request): its state and context
// id would leak (mpi.soak.np2.rpn1.auto, MPICH 4.0.2: 4 MiB in 1,500
// create/free cycles, then a crash inside MPI_Dist_graph_create). There
// the step's collective is blocking, in the call it is due at. Open MPI
// 4.1.4 calls the delete callbacks at MPI_Comm_free.
#if defined(MPICH)
inline constexpr bool kCollectivesAhead = false;
#else
inline constexpr bool kCollectivesAhead = true;
#endif

}  // namespace nbrcoll
