// The progress engine of nonblocking calls. A nonblocking nbrcoll call is a
// generalized request (MPI_Grequest_start) that the application waits on or
// tests like any other; nbrcoll advances every call in flight inside the
// completion calls it intercepts (completion.cpp) and completes the request
// when the call is done. With no call in flight, those completion calls cost
// one load and go straight to PMPI.
#pragma once

#include <mpi.h>

#include <memory>

namespace nbrcoll {

class Operation;

// Whether some nonblocking nbrcoll call has not yet completed its request.
bool calls_in_flight();

// Takes a started call and gives the application its request.
int track(std::shared_ptr<Operation> op, MPI_Request* request);

// Takes a started persistent call: `carrier` (the application's request,
// started) completes through `trigger` when the call is done; `owner` is
// kept alive until then.
void track_started(std::shared_ptr<Operation> op, MPI_Request carrier, MPI_Request trigger,
                   std::shared_ptr<void> owner);

// Advances every call in flight once, without blocking; completes the
// requests of those that are done.
void progress_all();

// Drives `op`, a call the engine does not track (a blocking one), to its
// end, advancing the calls in flight meanwhile.
void drive_to_end(Operation& op);

// Waits until the tracked call `op` is done, advancing every call in flight.
void wait_tracked(const Operation& op);

// MPI_Request_free of the request of a call still in flight: the call goes
// on (its peers need it) and its request is freed when it ends. False when
// `request` is not such a request.
bool orphan(MPI_Request request);

// Whether `request` belongs to a call still in flight.
bool in_flight(MPI_Request request);

// Every call in flight to its end (before MPI_Finalize).
void drain();

// What MPI_Cancel returns for a nonblocking collective of this MPI (asked
// once, on an MPI_Ibarrier of MPI_COMM_SELF).
int collective_cancel_answer();

// A polling loop's pause: nothing after a few rounds, then a yield.
class Backoff {
 public:
  void pause();

 private:
  int rounds_ = 0;
};

}  // namespace nbrcoll
