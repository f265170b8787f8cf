#include "call/operation.h"

#include <new>

#include "support/log.h"
#include "call/progress.h"

namespace nbrcoll {

Operation::Operation(std::shared_ptr<const GraphInfo> info, const RunnablePlan& plan, std::shared_ptr<OwnedComm> comm,
                     int tag_offset, CallScratch& borrowed)
    : info_(std::move(info)), plan_(plan), comm_(std::move(comm)), tag_offset_(tag_offset), scratch_(&borrowed) {}

Operation::Operation(std::shared_ptr<const GraphInfo> info, const RunnablePlan& plan, std::shared_ptr<OwnedComm> comm,
                     int tag_offset, std::unique_ptr<CallScratch> owned)
    : info_(std::move(info)),
      plan_(plan),
      comm_(std::move(comm)),
      tag_offset_(tag_offset),
      owned_(std::move(owned)),
      scratch_(owned_.get()) {}

void Operation::prepare() {
  int rc = MPI_SUCCESS;
  try {
    rc = scratch_->layout.prepare(scratch_->args, info_->in);
  } catch (const std::bad_alloc&) {
    scratch_->layout.make_hollow();
    rc = MPI_ERR_NO_MEM;
  }
  if (rc != MPI_SUCCESS) {
    log(LogLevel::kWarn, "cannot prepare this rank's buffers (MPI error %d)", rc);
    error_ = rc;
  }
}

void Operation::start(const DeviceRouting* device) {
  device_ = device;
  run_.emplace(plan_, scratch_->choice, scratch_->layout, scratch_->bundles, scratch_->run,
               channel_of(*info_, *comm_, tag_offset_), device);
  run_->start();
}

bool Operation::progress(bool block) {
  if (done()) return true;
  if (!run_->step(block)) return false;
  int rc = run_->error();
  if (rc == MPI_SUCCESS)
    rc = scratch_->layout.finish(scratch_->args, plan_.mixed, scratch_->choice, device_, comm_->comm);
  if (error_ == MPI_SUCCESS) error_ = rc;
  done_.store(true, std::memory_order_release);
  return true;
}

int begin_call(CallSequence& sequence, const GraphInfo& info) {
  const auto w = static_cast<std::size_t>(sequence.calls % static_cast<std::uint64_t>(info.tag_windows));
  sequence.window.resize(static_cast<std::size_t>(info.tag_windows));
  if (const std::shared_ptr<Operation>& previous = sequence.window[w]; previous && !previous->done()) {
    wait_tracked(*previous);
  }
  sequence.window[w].reset();
  ++sequence.calls;
  return static_cast<int>(w) * info.tag_stride;
}

void remember_in_flight(CallSequence& sequence, const GraphInfo& info, int tag_offset, std::shared_ptr<Operation> op) {
  sequence.window[static_cast<std::size_t>(tag_offset / info.tag_stride)] = std::move(op);
}

}  // namespace nbrcoll
