// How the bytes of one fragment travel in a process with a GPU runtime. Its
// sender chooses from what it alone knows (where its bytes lie, whether IPC
// can export them, whether the peer shares its node), so no rank asks
// another: the receiver posts both a data receive and a note receive
// (an IpcDescriptor on the fragment's tag shifted by
// DeviceRouting::note_shift) and cancels the one that did not come.
#pragma once

#include <cstdint>
#include <vector>

namespace nbrcoll {

// Where one side (send blocks, receive slots) of a call's bytes lie, as this
// rank alone sees them.
enum class Memory : std::uint8_t {
  kHost,     // CPU memory: the user's host buffer, or a pack stage
  kDevice,   // device memory the device backend moves (contiguous types)
  kForeign,  // device memory nbrcoll does not move itself (no backend for it):
             // handed to the MPI's point-to-point calls as it is, as the
             // MPI's own neighbor collective would
};

enum class Route : std::uint8_t {
  kMpi,        // the bytes, by MPI on the buffer itself (host bytes, or a GPU-aware MPI)
  kMpiStaged,  // the bytes, by MPI through pinned host staging
  kIpc,        // a note: same node, the receiver copies from the sender's
               // IPC-mapped memory and acks once done with all of it
  kMissing,    // a note: the block's bytes are not here (a device error or a
               // hollow rank upstream); the receiver reports an error and
               // passes the note on to the ranks it forwards to
};

// What a device call's transport needs to know, decided with the rest of
// the call (call/decide.cpp): where this rank's own bytes lie and which
// routes it may use.
struct DeviceRouting {
  const std::vector<int>* process_of = nullptr;  // rank -> process id (MPI_COMM_WORLD rank)
  int ack_tag = 0;                               // above every plan tag: "I finished reading your memory"
  int note_shift = 0;                            // note tags: a fragment's tag + this
  bool ipc = true;                               // IPC to peers on this rank's node
  bool gpu_aware = false;                        // the MPI reads device memory (else: staged)
  Memory send = Memory::kHost;                   // this rank's send blocks
  Memory recv = Memory::kHost;                   // this rank's receive slots
  bool send_exportable = false;                  // IPC can export the send / receive buffer
  bool recv_exportable = false;

  // The route of a send whose bytes lie in `from`, before anything fails:
  // chosen once per peer (on its node or not) and side.
  [[nodiscard]] Route route(Memory from, bool exportable, bool peer_on_node) const {
    if (from != Memory::kDevice) return Route::kMpi;
    if (ipc && exportable && peer_on_node) return Route::kIpc;
    return gpu_aware ? Route::kMpi : Route::kMpiStaged;
  }
};

}  // namespace nbrcoll
