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

// The user's arguments of one call, in one form for both variants.
struct CallArgs {
  const void* sendbuf = nullptr;
  int sendcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  void* recvbuf = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  std::vector<int> recvcounts;   // one per in-list slot
  std::vector<MPI_Aint> displs;  // one per slot, in units of the recvtype extent
};

// Where the bytes of every block live during a call: the user's buffers where
// the types allow it, a packed staging area otherwise.
class CallLayout {
 public:
  // May allocate (pack buffers) and pack the send block: call before any
  // communication so that a failure can still fall back. MPI_SUCCESS or an error.
  int prepare(const CallArgs& args, const std::vector<int>& in_list);
  // After all fragments arrived: unpack staged blocks into the user's buffer.
  int finish(const CallArgs& args, const std::vector<algos::LocalCopy>& copies);

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
// (nothing here depends on the block size of a call).
struct RunnablePlan {
  algos::Plan plan;
  std::vector<std::vector<int>> forwards;  // per receive: the sends that forward it
};
RunnablePlan make_runnable(algos::Plan plan);

// Move every fragment of `plan`. `chunk` bytes per message at most.
// MPI_SUCCESS or the first MPI error seen (after all requests settled).
int run_plan(const RunnablePlan& runnable, const CallLayout& layout, MPI_Comm comm, std::uint64_t chunk);

}  // namespace nbrcoll
