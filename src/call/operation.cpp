#include "call/operation.h"

#include <new>

#include "support/log.h"
#include "transport/device/backend_loader.h"

namespace nbrcoll {

namespace {

// Where the messages of a call at `tag_offset` (its window in the handle's
// tag block) travel: the handle's channel, addressed by world rank on the
// shared communicator.
Channel channel_of(const GraphInfo& info, const OwnedComm& own, int tag_offset) {
  return Channel{own.comm, own.shared ? &info.process_of : nullptr, own.tag_base + tag_offset, own.tag_base};
}

}  // namespace

Operation::Operation(std::shared_ptr<const GraphInfo> info, const algos::Schedule& schedule,
                     std::shared_ptr<OwnedComm> comm, const Decision& decision, CallScratch& borrowed)
    : info_(std::move(info)), schedule_(schedule), comm_(std::move(comm)), decision_(decision), scratch_(&borrowed) {}

Operation::Operation(std::shared_ptr<const GraphInfo> info, const algos::Schedule& schedule,
                     std::shared_ptr<OwnedComm> comm, const Decision& decision, std::unique_ptr<CallScratch> owned,
                     std::shared_ptr<ScratchPool> pool)
    : info_(std::move(info)),
      schedule_(schedule),
      comm_(std::move(comm)),
      decision_(decision),
      pool_(std::move(pool)),
      owned_(std::move(owned)),
      scratch_(owned_.get()) {}

Operation::~Operation() {
  try {
    release_scratch();
  } catch (...) {  // a destructor throws nothing; the scratch is freed with the call
  }
}

void Operation::release_scratch() {
  run_.emplace<std::monostate>();  // the run refers to the scratch
  device_.reset();
  if (pool_ && owned_) {
    pool_->give(std::move(owned_));
    scratch_ = nullptr;
  }
}

void Operation::prepare() {
  int rc = MPI_SUCCESS;
  try {
    rc = scratch_->layout.prepare(scratch_->args, info_->in, decision_.linear_everywhere);
  } catch (const std::bad_alloc&) {
    scratch_->layout.make_hollow();
    rc = MPI_ERR_NO_MEM;
  }
  if (rc != MPI_SUCCESS) {
    log(LogLevel::kWarn, "cannot prepare this rank's buffers (MPI error %d)", rc);
    error_ = rc;
    scratch_->forget_layout();  // hollow: the next call measures anew
  }
}

void Operation::start(int tag_offset, bool same_window) {
  CallScratch& s = *scratch_;
  // Nothing packed (both sides in place, or sent typed): the layout is the
  // user's buffers, laid out again unless the call repeats the last on the
  // same buffers.
  const bool typed = decision_.linear_everywhere;
  const bool in_place = !s.layout.send_packed(typed) && !s.layout.recv_packed(typed);
  if (!decision_.repeat || !decision_.same_buffers || !in_place || s.layout.blocks().hollow) prepare();
  tag_offset_ = tag_offset;
  channel_ = channel_of(*info_, *comm_, tag_offset);
  if (decision_.path == Path::kLinear) {
    // Messages are kept only where the next call's will have the same tags.
    LinearRun::Kept kept;
    if (in_place && same_window)
      kept = {&s.kept_recvs, &s.kept_sends, s.layout_generation, s.args.recvbuf, s.args.sendbuf};
    run_.emplace<LinearRun>(schedule_, s.choice, s.layout.blocks(), s.layout.typed(), s.requests, channel_, kept);
  } else if (decision_.transport == TransportKind::kHost) {
    run_.emplace<EngineRun<HostTransport>>(schedule_, s, schedule_.mixed, channel_, s.requests);
  } else {
    if (const nbrcoll_device_backend* backend = device_backend()) device_.emplace(*backend);
    run_.emplace<EngineRun<DeviceTransport>>(schedule_, s, schedule_, channel_, s.routing,
                                             device_ ? &*device_ : nullptr, s.requests, s.device);
  }
  std::visit(
      [](auto& run) {
        if constexpr (requires { run.engine; }) {
          run.engine.start();
        } else if constexpr (requires { run.start(); }) {
          run.start();
        }
      },
      run_);
}

bool Operation::progress(bool block) {
  if (done()) return true;
  int rc = MPI_SUCCESS;
  const bool finished = std::visit(
      [&](auto& run) {
        if constexpr (requires { run.engine; }) {
          if (!run.engine.step(block)) return false;
          rc = run.engine.error();
        } else if constexpr (requires { run.step(block); }) {
          if (!run.step(block)) return false;
          rc = run.error();
        }
        return true;
      },
      run_);
  if (!finished) return false;
  if (rc == MPI_SUCCESS) rc = scratch_->layout.unpack(scratch_->args);
  if (error_ == MPI_SUCCESS) error_ = rc;
  done_.store(true, std::memory_order_release);
  return true;
}

}  // namespace nbrcoll
