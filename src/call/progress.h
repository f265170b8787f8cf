// The progress engine of nonblocking calls. A nonblocking nbrcoll call is a
// generalized request (MPI_Grequest_start) that the application waits on or
// tests like any other; nbrcoll advances every call in flight inside the
// completion calls it intercepts (completion.cpp) and completes the request
// when the call is done. With no call in flight, those completion calls cost
// one load and go straight to PMPI.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>

namespace nbrcoll {

class Operation;
struct CallSequence;

// The launch sequence of every call nbrcoll runs, blocking, nonblocking or
// persistent: the call takes the next tag window of its communicator handle
// (a call still in flight in that window ends first, the calls in flight
// advancing meanwhile) and starts there.
void launch(Operation& op, CallSequence& sequence);

// Whether some nonblocking nbrcoll call has not yet completed its request.
bool calls_in_flight();

// Takes a launched nonblocking call (a later call of `sequence` in its tag
// window waits for it) and gives the application its request. `owner`, if
// any, is kept until the call completes.
int track(std::shared_ptr<Operation> op, CallSequence& sequence, MPI_Request* request,
          std::shared_ptr<void> owner = nullptr);

// Takes a launched persistent call: `carrier` (the application's request,
// started) completes through `trigger` when the call is done; `owner` is
// kept alive until then.
void track_started(std::shared_ptr<Operation> op, CallSequence& sequence, MPI_Request carrier, MPI_Request trigger,
                   std::shared_ptr<void> owner);

// Advances every call in flight once, without blocking; completes the
// requests of those that are done.
void progress_all();

namespace detail {
// Whether the MPI's progress loop runs nbrcoll's progress
// (NBRCOLL_PROGRESS=mpi, set by call/mpi_progress_hook.cpp): only then do
// the marks below count, so that a call pays no thread-local access where
// nothing reads them.
inline std::atomic<bool> g_mpi_loop_advances{false};
// initial-exec: a load from the thread pointer, not a __tls_get_addr call
// per access (the marks run twice in every call under the default progress).
inline thread_local int t_advancing __attribute__((tls_model("initial-exec"))) = 0;
}  // namespace detail

// While alive, this thread advances nbrcoll's calls itself (the engine
// launching, advancing or driving one; a wait or test loop of the
// completion calls): the MPI's progress loop, running inside the MPI calls
// made meanwhile, leaves them alone. The engine may be halfway through a
// call or hold its lock there, and a loop that advances every call
// between its tests needs no second pass from inside each test.
class AdvancingHere {
 public:
  AdvancingHere() : counted_(detail::g_mpi_loop_advances.load(std::memory_order_relaxed)) {
    if (counted_) ++detail::t_advancing;
  }
  ~AdvancingHere() {
    if (counted_) --detail::t_advancing;
  }
  AdvancingHere(const AdvancingHere&) = delete;
  AdvancingHere& operator=(const AdvancingHere&) = delete;

 private:
  bool counted_;
};

// Drives `op`, a call the engine does not track (a blocking one), to its
// end, advancing the calls in flight meanwhile.
void drive_to_end(Operation& op);

// Waits until the tracked call `op` is done, advancing every call in flight.
void wait_tracked(const Operation& op);

// Whether `request` belongs to a call still in flight.
bool in_flight(MPI_Request request);

// The application waits on `requests` (all of them, MPI_Wait or
// MPI_Waitall): if the only call in flight is one of them, finishes it
// blocking inside the MPI (one Waitall where it forwards nothing, as the
// MPI's own wait does) instead of polling. Nothing else of nbrcoll's then
// needs this rank, and the wait could not return before that call is done.
// Under MPI_THREAD_MULTIPLE, where another thread may need the engine
// meanwhile, only a call that needs nothing of nbrcoll's after its start
// (Operation::posted_at_start), taken out of the list and polled alone.
void finish_sole_call(int count, const MPI_Request* requests);

// Every call in flight to its end (before MPI_Finalize).
void drain();

// What MPI_Request_free (`cancel` false) or MPI_Cancel (true) of an active
// nonblocking collective returns in this MPI: both are erroneous (MPI 4.0
// section 6.12) and both MPIs refuse, leaving the request active. Asked once
// on a completed MPI_Ibarrier of MPI_COMM_SELF: MPICH refuses that too (its
// answer is used as it is); Open MPI accepts a completed one and refuses an
// active one with MPI_ERR_REQUEST.
int active_collective_refusal(bool cancel);

// A polling loop's pause: nothing after a few rounds, then a yield.
class Backoff {
 public:
  void pause();

 private:
  int rounds_ = 0;
};

}  // namespace nbrcoll
