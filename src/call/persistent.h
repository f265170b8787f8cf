// Persistent neighborhood collectives: MPI 4's MPI_Neighbor_*_init and Open
// MPI's extension MPIX_Neighbor_*_init, alike. The application's request is a
// persistent zero-byte receive on a private MPI_COMM_SELF duplicate (a
// "carrier"): MPI_Start starts it together with the call's plan, and when
// the plan is done a matching persistent send completes it, so every MPI
// completion call treats it as the persistent request it is. Built where
// the MPI has either form (support/persistent_forms.h: MPICH 4; Open MPI
// 4.1, MPI 3.1, through its extension).
#pragma once

#include <mpi.h>

#include <memory>

#include "call/decide.h"
#include "call/scratch.h"
#include "call/user_call.h"
#include "state/comm_state.h"
#include "support/persistent_forms.h"

namespace nbrcoll {

#if NBRCOLL_PERSISTENT
// One persistent call: arguments, sizes, variants and path decided at init.
struct PersistentCall {
  std::shared_ptr<const GraphInfo> info;
  const algos::Schedule* schedule = nullptr;  // one of info's schedules
  Kind kind = Kind::kAllgather;               // for the run report
  Decision decision;
  std::shared_ptr<OwnedComm> comm;
  std::shared_ptr<CallSequence> sequence;  // the communicator handle's
  CallScratch scratch;
  MPI_Request carrier = MPI_REQUEST_NULL;  // the application's request
  MPI_Request trigger = MPI_REQUEST_NULL;  // completes the carrier
};

// Makes the carrier pair and gives the application its request.
int register_persistent(std::shared_ptr<PersistentCall> call, MPI_Request* request);

// Whether any persistent nbrcoll request exists (one load).
bool persistent_calls_exist();

// MPI_Start of `request` if it is one of ours: true and `rc` set.
bool start_persistent(MPI_Request* request, int& rc);

// MPI_Request_free of `request`, an inactive persistent request, if it is
// one of ours: true (an active one is refused before, completion.cpp).
bool free_persistent(MPI_Request* request);
#endif

}  // namespace nbrcoll
