// In a process with a GPU runtime: where this rank's own buffers of a call
// lie, from this rank alone (no rank asks another), and what the device
// transport may do with them.
#pragma once

#include "call/scratch.h"
#include "state/comm_state.h"
#include "transport/device/route.h"

namespace nbrcoll {

// The routing of a device call from this rank's own buffers: host memory, a
// pack stage (a non-contiguous type: the MPI packs, device memory or not),
// device memory the backend moves, or device memory nbrcoll does not move
// itself (no backend: the MPI gets it as it is); whether IPC can export it,
// whether the MPI is GPU-aware.
DeviceRouting device_routing(const GraphInfo& info, const OwnedComm& own, const CallScratch& s);

}  // namespace nbrcoll
