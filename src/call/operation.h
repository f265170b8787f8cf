// One neighborhood collective call that nbrcoll runs: its arguments, its
// buffers' layout, the variant of every origin and the run of its plan. A
// blocking call drives it to the end at once; a nonblocking or persistent
// one is advanced by the progress engine (progress.h) inside the MPI calls
// the application makes.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>
#include <optional>

#include "state/comm_state.h"
#include "engine/executor.h"

namespace nbrcoll {

class Operation {
 public:
  // `plan` belongs to `info` (its allgather or alltoall plan). A blocking
  // call borrows the communicator state's scratch; a nonblocking one owns its own.
  Operation(std::shared_ptr<const GraphInfo> info, const RunnablePlan& plan, std::shared_ptr<OwnedComm> comm,
            int tag_offset, CallScratch& borrowed);
  Operation(std::shared_ptr<const GraphInfo> info, const RunnablePlan& plan, std::shared_ptr<OwnedComm> comm,
            int tag_offset, std::unique_ptr<CallScratch> owned);
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  [[nodiscard]] CallScratch& scratch() { return *scratch_; }
  // Packs the send blocks and lays out the receive side; a rank that cannot
  // still takes part, hollow, and reports the error at the end.
  void prepare();
  // `device`: the routing of a call in a process with a GPU runtime (it
  // must outlive the call); nullptr in host-only processes.
  void start(const DeviceRouting* device = nullptr);
  // Advances the call; `block`: may wait inside the MPI. True once done
  // (every message completed, received blocks in the user's buffer).
  bool progress(bool block);
  [[nodiscard]] bool done() const { return done_.load(std::memory_order_acquire); }
  // MPI_SUCCESS or the call's first error (valid once done).
  [[nodiscard]] int error() const { return error_; }

 private:
  std::shared_ptr<const GraphInfo> info_;  // keeps `plan_` alive
  const RunnablePlan& plan_;
  std::shared_ptr<OwnedComm> comm_;  // the channel outlives a freed user handle
  int tag_offset_;                   // this call's tag window
  std::unique_ptr<CallScratch> owned_;
  CallScratch* scratch_;
  std::optional<PlanExecution> run_;
  const DeviceRouting* device_ = nullptr;
  int error_ = MPI_SUCCESS;
  std::atomic<bool> done_{false};  // read by threads waiting for a tracked call
};

// The tag offset of the next call of `sequence` (a call still in flight in
// its window ends first); counts the call.
int begin_call(CallSequence& sequence, const GraphInfo& info);
// `op`, a call now in flight at `tag_offset`, is the one a later call in
// that window waits for.
void remember_in_flight(CallSequence& sequence, const GraphInfo& info, int tag_offset, std::shared_ptr<Operation> op);

}  // namespace nbrcoll
