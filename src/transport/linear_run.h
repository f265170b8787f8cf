// The host fast path: a host call whose every block goes linear, without
// bundles. Nothing is forwarded and no note travels, so the engine's
// bookkeeping (byte ranges of every fragment, completions one by one) buys
// nothing. It posts the messages the engine would post, in the same order
// (the linear receives, then this rank's own sends), and completes them
// with one Waitall (Testall when it must not block), as the MPI's own
// linear algorithm does. call/decide.cpp chooses it. Each side (receives,
// sends) whose key (layout, buffer, channel, window) the last run had too
// is posted as persistent requests and kept; a later run with that key only
// starts them (standing_messages.h). Sends are kept only where none is small
// enough to leave MPI_Isend inline (linear_run.cpp, kInlineSendBytes). With typed blocks (typed_blocks.h)
// every message carries the user's own datatype instead of bytes.
#pragma once

#include "algos/schedule.h"
#include "engine/blocks.h"
#include "engine/choice.h"
#include "engine/outcome.h"
#include "transport/channel.h"
#include "transport/requests.h"
#include "transport/standing_messages.h"
#include "transport/typed_blocks.h"

namespace nbrcoll {

class LinearRun {
 public:
  // The scratch's kept messages (standing_messages.h), receives and sends,
  // for a layout of `generation` on these user buffers; null sets where
  // nothing may be kept.
  struct Kept {
    StandingMessages* recvs = nullptr;
    StandingMessages* sends = nullptr;
    std::uint64_t generation = 0;
    const void* recvbuf = nullptr;
    const void* sendbuf = nullptr;
  };
  // Everything given must outlive the run. `typed`: the blocks as typed
  // messages, or null for bytes (call/layout.h: never for a hollow table).
  LinearRun(const algos::Schedule& schedule, const engine::CallChoice& choice, const engine::BlockTable& blocks,
            const TypedBlocks* typed, MpiRequests& requests, const Channel& channel, const Kept& kept)
      : schedule_(schedule),
        choice_(choice),
        blocks_(blocks),
        typed_(typed),
        requests_(requests),
        channel_(channel),
        kept_(kept) {}
  void start();
  // True once done: every message completed and the local copies made.
  bool step(bool block);
  [[nodiscard]] int error() const { return outcome_.first_error; }

 private:
  void post_recvs(MpiRequests& out, bool persistent);
  void post_sends(MpiRequests& out, bool persistent);
  template <class Post, class WorthKeeping>
  bool side(StandingMessages* kept, const void* buffer, Post post, WorthKeeping worth_keeping);
  [[nodiscard]] bool has_inline_send() const;
  int typed_local_copies();

  const algos::Schedule& schedule_;
  const engine::CallChoice& choice_;
  const engine::BlockTable& blocks_;
  const TypedBlocks* typed_;
  std::vector<char> copy_stage_;  // typed local copies of blocks that are not in place
  MpiRequests& requests_;         // every request of the run: the receives, then the sends
  Channel channel_;
  Kept kept_;
  bool recvs_kept_ = false;  // the receives (sends) are the kept set's
  bool sends_kept_ = false;
  std::size_t recv_count_ = 0;  // requests_ holds this many receives first
  engine::Outcome outcome_;
  bool finished_ = false;
};

}  // namespace nbrcoll
