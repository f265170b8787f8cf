// The host fast path: a host call whose every block goes linear, without
// bundles. Nothing is forwarded and no note travels, so the engine's
// bookkeeping (byte ranges of every fragment, completions one by one) buys
// nothing. It posts the messages the engine would post, in the same order
// (the linear receives, then this rank's own sends), and completes them
// with one Waitall (Testall when it must not block), as the MPI's own
// linear algorithm does. call/decide.cpp chooses it. A call whose layout
// ran before posts its messages as persistent requests and keeps them; a
// later run on the same layout, channel and window only starts them
// (standing_messages.h).
#pragma once

#include "algos/schedule.h"
#include "engine/blocks.h"
#include "engine/choice.h"
#include "engine/outcome.h"
#include "transport/channel.h"
#include "transport/requests.h"
#include "transport/standing_messages.h"

namespace nbrcoll {

class LinearRun {
 public:
  // Everything given must outlive the run. `standing`: the scratch's kept
  // messages, `layout` the generation of its layout and `ran_before`
  // whether that layout has run already (then the messages are kept); null
  // where nothing may be kept.
  LinearRun(const algos::Schedule& schedule, const engine::CallChoice& choice, const engine::BlockTable& blocks,
            MpiRequests& requests, const Channel& channel, StandingMessages* standing = nullptr,
            std::uint64_t layout = 0, bool ran_before = false)
      : schedule_(schedule),
        choice_(choice),
        blocks_(blocks),
        requests_(&requests),
        channel_(channel),
        standing_(standing),
        key_{layout, channel.comm, channel.tag_offset},
        ran_before_(ran_before) {}
  void start();
  // True once done: every message completed and the local copies made.
  bool step(bool block);
  [[nodiscard]] int error() const { return outcome_.first_error; }

 private:
  const algos::Schedule& schedule_;
  const engine::CallChoice& choice_;
  const engine::BlockTable& blocks_;
  void post(bool keep);

  MpiRequests* requests_;  // the scratch's, or the standing set's
  Channel channel_;
  StandingMessages* standing_;
  StandingKey key_;
  bool ran_before_;
  bool on_standing_ = false;
  engine::Outcome outcome_;
  bool finished_ = false;
};

}  // namespace nbrcoll
