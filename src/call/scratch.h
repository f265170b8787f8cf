// What one call needs besides its schedule, kept between calls so that a
// call allocates nothing once sizes have been seen: a communicator handle's
// blocking calls share one (one call at a time per handle, as MPI requires
// of collectives); a nonblocking call owns one; a persistent call keeps its
// own for every start.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "call/arguments.h"
#include "call/large_counts.h"
#include "call/layout.h"
#include "engine/bundle_store.h"
#include "engine/choice.h"
#include "engine/engine.h"
#include "transport/device/device_transport.h"
#include "transport/device/route.h"
#include "transport/requests.h"

namespace nbrcoll {

struct CallScratch {
  CallArgs args;
  NarrowedCall narrowed;  // decide(): a large-count call's int form
  CallLayout layout;
  engine::CallChoice choice;  // decide(): the variant of every unit, bundles
  DeviceRouting routing;      // decide(): where this rank's bytes lie (device transport only)
  engine::BundleStore bundles;
  engine::EngineScratch engine;
  MpiRequests requests;
  DeviceScratch device;
  // Lets the buffers that hold data go (pack stages, bundles: they may be
  // large), keeping the per-fragment vectors for a later call.
  void release_data() {
    layout.release_stages();
    bundles = {};
  }
};

// The scratches of a communicator handle's nonblocking calls, handed back
// when a call ends and reused by the next, so that a nonblocking call
// allocates nothing once its sizes have been seen. A call may end on any
// thread (the progress engine), hence the lock.
class ScratchPool {
 public:
  explicit ScratchPool(std::size_t kept = 64) : kept_(kept) {}
  std::unique_ptr<CallScratch> take() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<CallScratch> s = std::move(free_.back());
        free_.pop_back();
        return s;
      }
    }
    return std::make_unique<CallScratch>();
  }
  void give(std::unique_ptr<CallScratch> s) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() < kept_) free_.push_back(std::move(s));
  }

 private:
  std::size_t kept_;  // a handle's: 64, as many as calls can be in flight on it
  std::mutex mutex_;
  std::vector<std::unique_ptr<CallScratch>> free_;
};

}  // namespace nbrcoll
