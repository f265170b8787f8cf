// One neighborhood collective call that nbrcoll runs: its buffers' layout
// and the run its decision names (the host fast path, or the schedule
// engine on the host or device transport). A blocking call drives it to
// the end at once; a nonblocking or persistent one is advanced by the
// progress engine (progress.h) inside the MPI calls the application makes.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>
#include <optional>
#include <variant>

#include "call/decide.h"
#include "call/scratch.h"
#include "engine/engine.h"
#include "state/comm_state.h"
#include "transport/channel.h"
#include "transport/device/device_call.h"
#include "transport/device/device_transport.h"
#include "transport/host.h"
#include "transport/linear_run.h"

namespace nbrcoll {

// The schedule engine with the transport it runs on (the engine refers to it).
template <class Transport>
struct EngineRun {
  template <class... TransportArgs>
  EngineRun(const algos::Schedule& schedule, CallScratch& s, TransportArgs&&... args)
      : transport(std::forward<TransportArgs>(args)...),
        engine(schedule, s.choice, s.layout.blocks(), s.bundles, s.engine, transport) {}
  Transport transport;
  engine::Engine<Transport> engine;
};

class Operation {
 public:
  // `schedule` belongs to `info` (its allgather or alltoall schedule). A
  // blocking call borrows the communicator handle's scratch; a nonblocking
  // one owns its own. `decision`: decide()'s, for a call nbrcoll takes.
  Operation(std::shared_ptr<const GraphInfo> info, const algos::Schedule& schedule, std::shared_ptr<OwnedComm> comm,
            const Decision& decision, CallScratch& borrowed);
  // A nonblocking call: `owned` goes back to `pool` when the call ends.
  Operation(std::shared_ptr<const GraphInfo> info, const algos::Schedule& schedule, std::shared_ptr<OwnedComm> comm,
            const Decision& decision, std::unique_ptr<CallScratch> owned, std::shared_ptr<ScratchPool> pool);
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;
  ~Operation();

  [[nodiscard]] CallScratch& scratch() { return *scratch_; }
  [[nodiscard]] const CallScratch& scratch() const { return *scratch_; }
  [[nodiscard]] const GraphInfo& info() const { return *info_; }
  [[nodiscard]] const algos::Schedule& schedule() const { return schedule_; }
  [[nodiscard]] const Decision& decision() const { return decision_; }
  [[nodiscard]] int tag_offset() const { return tag_offset_; }
  // Packs the send blocks and lays out the receive side (a rank that cannot
  // still takes part, hollow, and reports the error at the end), then
  // starts the run on the call's tag window (progress.h: launch());
  // `same_window`: every call of its kind takes this window (launch()), so
  // kept messages keep their tags.
  void start(int tag_offset, bool same_window);
  // Advances the call; `block`: may wait inside the MPI. True once done
  // (every message completed, received blocks in the user's buffer).
  bool progress(bool block);
  [[nodiscard]] bool done() const { return done_.load(std::memory_order_acquire); }
  // A done nonblocking call gives its scratch back to the pool now: the
  // call stays referenced (its tag window remembers it) until a later call
  // takes that window, up to 63 calls on, and its scratch must serve the
  // next call meanwhile, warm. scratch() is not to be read after.
  void release_scratch();
  // Whether the call needs nothing of nbrcoll's once started (the host fast
  // path: every message posted at start, the MPI completes them): no
  // forwards, no bundles, no copies between waits.
  [[nodiscard]] bool posted_at_start() const { return std::holds_alternative<LinearRun>(run_); }
  // MPI_SUCCESS or the call's first error (valid once done).
  [[nodiscard]] int error() const { return error_; }

 private:
  void prepare();

  std::shared_ptr<const GraphInfo> info_;  // keeps `schedule_` alive
  const algos::Schedule& schedule_;
  std::shared_ptr<OwnedComm> comm_;  // the channel outlives a freed user handle
  Decision decision_;
  std::shared_ptr<ScratchPool> pool_;
  std::unique_ptr<CallScratch> owned_;
  CallScratch* scratch_;
  int tag_offset_ = 0;  // this call's tag window in its handle's block
  Channel channel_;
  std::optional<DeviceCall> device_;  // the device transport's resources; outlives the run
  std::variant<std::monostate, LinearRun, EngineRun<HostTransport>, EngineRun<DeviceTransport>> run_;
  int error_ = MPI_SUCCESS;
  std::atomic<bool> done_{false};  // read by threads waiting for a tracked call
};

}  // namespace nbrcoll
