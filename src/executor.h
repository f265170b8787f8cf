// Runs one rank's plan for one MPI_Neighbor_allgather(v) call: nonblocking
// point-to-point on the private communicator, each fragment forwarded as soon
// as it has arrived (chunk by chunk), bytes landing in their final place.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "datatype.h"
#include "plan.h"

namespace nbrcoll {

class DeviceCall;

// The user's arguments of one call, in one form for both variants.
struct CallArgs {
  const void* sendbuf = nullptr;
  int sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  std::vector<int> recvcounts;   // one per in-list slot
  std::vector<MPI_Aint> displs;  // one per slot, in units of the recvtype extent
  bool sends = false;            // a block goes to some real neighbour
  bool receives = false;         // some slot gets a block from a real neighbour
};

// Where the bytes of every block live during a call: the user's buffers where
// the types allow it, a packed staging area otherwise.
class CallLayout {
 public:
  // May allocate (pack buffers) and pack the send block: call before any
  // communication so that a failure can still fall back. MPI_SUCCESS or an error.
  int prepare(const CallArgs& args, const std::vector<int>& in_list);
  // After all fragments arrived: local copies (on the device for device
  // buffers), then unpack staged blocks into the user's buffer.
  int finish(const CallArgs& args, const std::vector<algos::LocalCopy>& copies, DeviceCall* device = nullptr);

  [[nodiscard]] const char* send_data() const { return send_data_; }
  [[nodiscard]] std::uint64_t send_bytes() const { return send_bytes_; }
  [[nodiscard]] char* slot_data(int slot) const { return slot_data_[static_cast<std::size_t>(slot)]; }
  [[nodiscard]] std::uint64_t slot_bytes(int slot) const { return slot_bytes_[static_cast<std::size_t>(slot)]; }
  // Largest block this rank sends or receives in the call.
  [[nodiscard]] std::uint64_t largest_block() const;

 private:
  TypeLayout send_type_;
  TypeLayout recv_type_;
  const char* send_data_ = nullptr;
  std::uint64_t send_bytes_ = 0;
  std::vector<char*> slot_data_;
  std::vector<std::uint64_t> slot_bytes_;
  std::vector<char> send_stage_;
  std::vector<char> recv_stage_;
};

// A plan plus what the executor derives from it once, at graph creation
// (nothing here depends on the block size or the buffers of a call).
struct RunnablePlan {
  algos::Plan plan;
  std::vector<std::vector<int>> forwards;  // per receive: the sends that forward it
  // The sends of this rank's own block, in staggered peer order (the next
  // rank first), so that the ranks of a node do not all start on one peer.
  std::vector<int> own_sends;
  std::vector<bool> recv_on_node;  // per receive: the peer shares this rank's node
  std::vector<bool> send_on_node;  // per send: likewise
};
// node_of: rank -> node id, for every rank of the communicator.
RunnablePlan make_runnable(algos::Plan plan, const std::vector<int>& node_of);

// How one fragment of a call with device buffers travels.
enum class Route : std::uint8_t {
  kMpi,        // MPI on the buffer itself (host buffers, or a GPU-aware MPI)
  kMpiStaged,  // MPI through pinned host staging, chunk by chunk
  kIpc,        // same node: the receiver's copy kernel reads the sender's
               // IPC-mapped memory; a small MPI message says "chunk ready"
};

// The device side of a call: what moves the bytes and which routes it may use.
struct DeviceRouting {
  DeviceCall* device = nullptr;
  const std::vector<int>* process_of = nullptr;  // rank -> process id (MPI_COMM_WORLD rank)
  int ack_tag = 0;                               // above every plan tag: "I finished reading your memory"
  bool ipc = true;                               // IPC to peers on this rank's node
  bool gpu_aware = false;                        // the MPI reads device memory (else: staged)

  [[nodiscard]] Route route(bool peer_on_node) const {
    if (ipc && peer_on_node) return Route::kIpc;
    return gpu_aware ? Route::kMpi : Route::kMpiStaged;
  }
};

// Move every fragment of `plan`. `chunk` bytes per message at most. `device`:
// nullptr for host buffers. MPI_SUCCESS or the first error seen (after all
// requests settled and every peer was told what it waits for).
int run_plan(const RunnablePlan& runnable, const CallLayout& layout, MPI_Comm comm, std::uint64_t chunk,
             const DeviceRouting* device = nullptr);

}  // namespace nbrcoll
