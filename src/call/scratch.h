// What one call needs besides its schedule, kept between calls so that a
// call allocates nothing once sizes have been seen: a communicator handle's
// blocking calls share one (one call at a time per handle, as MPI requires
// of collectives); a nonblocking call owns one; a persistent call keeps its
// own for every start.
#pragma once

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

#include "call/arguments.h"
#include "call/large_counts.h"
#include "call/layout.h"
#include "call/repeat.h"
#include "call/tally.h"
#include "call/trial_ticket.h"
#include "engine/bundle_store.h"
#include "engine/choice.h"
#include "engine/engine.h"
#include "transport/device/device_transport.h"
#include "transport/device/route.h"
#include "transport/requests.h"
#include "transport/standing_messages.h"

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
  // decide(): the call this scratch last served, for a repeat of it.
  RepeatKey repeat;
  // Which layout the scratch holds (decide() counts one up for every call
  // it measures anew), and the host fast path's kept receives and sends.
  std::uint64_t layout_generation = 0;
  // decide(): a trial call's (Decision::trial) ticket, its start time for
  // its measure; a nonblocking one's is spent when the call is done.
  TrialTicket trial;
  StandingMessages kept_recvs;
  StandingMessages kept_sends;
  // The run report's count of this layout's bytes (call/tally.cpp).
  mutable TalliedBytes tallied;
  // Lets the buffers that hold data go (pack stages, bundles: they may be
  // large), keeping the per-fragment vectors for a later call; forgets
  // the last call and frees its kept messages (the scratch may serve
  // another handle next).
  void release_data() {
    layout.release_stages();
    bundles = {};
    forget_layout();
    kept_recvs.release();
    kept_sends.release();
  }
  void forget_layout() {
    repeat.forget();
    ++layout_generation;
  }
};

// The scratches of a communicator handle's nonblocking calls, handed back
// when a call ends and reused by the next, so that a nonblocking call
// allocates nothing once its sizes have been seen. A call may end on any
// thread (the progress engine), hence the lock.
class ScratchPool {
 public:
  explicit ScratchPool(std::size_t kept = 64) : kept_(kept) {}
  // The scratch `prefer` picks (the one that served the same call last),
  // else the one given back last, else a new one.
  template <class Prefer>
  std::unique_ptr<CallScratch> take(Prefer prefer) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        auto pick = std::find_if(free_.rbegin(), free_.rend(), [&](const auto& s) { return prefer(*s); });
        const auto at = pick == free_.rend() ? free_.end() - 1 : std::next(pick).base();
        std::unique_ptr<CallScratch> s = std::move(*at);
        free_.erase(at);
        return s;
      }
      ++made_;
    }
    return std::make_unique<CallScratch>();
  }
  std::unique_ptr<CallScratch> take() {
    return take([](const CallScratch&) { return false; });
  }
  void give(std::unique_ptr<CallScratch> s) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() < kept_) free_.push_back(std::move(s));
  }
  // How many scratches take() made: as many as calls were ever in flight at
  // once on the handle, where done calls give theirs back at once.
  [[nodiscard]] std::size_t made() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return made_;
  }

 private:
  std::size_t kept_;  // a handle's: 64, as many as calls can be in flight on it
  std::size_t made_ = 0;
  std::mutex mutex_;
  std::vector<std::unique_ptr<CallScratch>> free_;
};

}  // namespace nbrcoll
