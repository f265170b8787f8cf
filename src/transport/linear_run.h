// The host fast path: a host call whose every block goes linear, without
// bundles. Nothing is forwarded and no note travels, so the engine's
// bookkeeping (byte ranges of every fragment, completions one by one) buys
// nothing. It posts the messages the engine would post, in the same order
// (the linear receives, then this rank's own sends), and completes them
// with one Waitall (Testall when it must not block), as the MPI's own
// linear algorithm does. call/decide.cpp chooses it.
#pragma once

#include "algos/schedule.h"
#include "engine/blocks.h"
#include "engine/choice.h"
#include "engine/outcome.h"
#include "transport/channel.h"
#include "transport/requests.h"

namespace nbrcoll {

class LinearRun {
 public:
  // Everything given must outlive the run.
  LinearRun(const algos::Schedule& schedule, const engine::CallChoice& choice, const engine::BlockTable& blocks,
            MpiRequests& requests, const Channel& channel)
      : schedule_(schedule), choice_(choice), blocks_(blocks), requests_(requests), channel_(channel) {}
  void start();
  // True once done: every message completed and the local copies made.
  bool step(bool block);
  [[nodiscard]] int error() const { return outcome_.first_error; }

 private:
  const algos::Schedule& schedule_;
  const engine::CallChoice& choice_;
  const engine::BlockTable& blocks_;
  MpiRequests& requests_;
  Channel channel_;
  engine::Outcome outcome_;
  bool finished_ = false;
};

}  // namespace nbrcoll
