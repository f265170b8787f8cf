// The schedule engine: runs one rank's schedule (algos/schedule.h) for one
// call, over a transport that moves its messages. Every receive of the
// call's variants is posted first, then this rank's own sends; each
// fragment is forwarded the moment it has arrived (no rounds); bundles go
// through the bundle flow (bundle_flow.h); once every message completed,
// the local copies (self and duplicate edges) are made. The engine knows no
// MPI and no device: where bytes travel and how is the transport's business
// (transport/host.h: MPI point-to-point; transport/device/: notes, staging
// and IPC copies), and tests/unit/engine runs it over a fake one.
//
// Wire rule: every fragment of the call's plan is exactly one message, empty
// or not. The set of fragments depends on the graph and on the variant of
// every unit, never on the block sizes, so a sender and a receiver that
// disagree on a block's size (an erroneous program) still post matching
// message counts, and nobody waits forever. A fragment that comes short is
// an error at its receiver: success means every byte came.
//
// A transport T provides (see transport/README.md):
//   static constexpr int kErrShort, kErrTruncate  the codes of the engine's own errors
//   static constexpr bool kEveryArrival  true: it has work on every arrival (notes,
//       copies, acks), so the call runs arrival by arrival even when nothing
//       is forwarded; false: such a call completes with one wait for all
//   void prepare(Engine<T>&, std::size_t messages)  before the first post
//   int post_recv(std::size_t r, char* data, std::uint64_t bytes)  fragment r of the plan
//   int post_send(std::size_t s, const char* data, std::uint64_t bytes, bool lost)
//   int post_bytes_recv(Token, int peer, int tag, char* data, std::uint64_t bytes)   bundles
//   int post_bytes_send(Token, int peer, int tag, const char* data, std::uint64_t bytes)
//       (each returns success or the error of posting)
//   bool complete_all(bool block, Engine<T>&)  (kEveryArrival false only) every
//       message at once: true when done
//   bool progress(bool block, Engine<T>&)  one round of completions; false when
//       nothing more can complete
//   bool settled() const; void give_up()  every message completed (give_up: a
//       blocking round found nothing more to complete: count the rest as settled)
//   void after_arrival(std::size_t r, Engine<T>&)  receive r is in place or known missing
//   int copy_local(char* to, const char* from, std::uint64_t bytes, bool from_send_side)
// and reports completions back through the engine's callbacks (below).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "algos/schedule.h"
#include "engine/blocks.h"
#include "engine/bundle_flow.h"
#include "engine/bundle_store.h"
#include "engine/choice.h"
#include "engine/outcome.h"
#include "engine/token.h"

namespace nbrcoll::engine {

// The engine's vectors, kept in the call's scratch between calls: a call
// allocates none of them once its sizes have been seen. Each is cleared,
// assigned or resized before a call reads it.
struct EngineScratch {
  std::vector<algos::ByteRange> recv_range;  // per receive of the plan: this call's bytes of its block
  std::vector<algos::ByteRange> send_range;
  // Per receive: its bytes are not all here (an error, a short or missing
  // fragment); its forwards then pass that on (an empty message, or a
  // missing note), so that every rank downstream learns it too.
  std::vector<char> missing;
  std::vector<int> bundle_waits;  // per bundle send: bundle receives still to arrive
  // A call whose units chose different variants: its receives, sends and own sends.
  std::vector<int> active_recvs;
  std::vector<int> active_sends;
  std::vector<int> active_own_sends;
};

// Each local copy of a call's chosen variants (self and duplicate edges),
// in plan order, to `fn`; the first error it returns stops the walk.
template <class Fn>
int for_each_local_copy(const algos::Schedule& schedule, const CallChoice& choice, Fn&& fn) {
  const algos::MixedPlan& mixed = schedule.mixed;
  for (std::size_t i = 0; i < mixed.plan.copies.size(); ++i) {
    if (!algos::chosen(mixed.copy_variant[i], mixed.copy_unit[i], choice.variant)) continue;
    if (const int rc = fn(mixed.plan.copies[i]); rc != kSuccess) return rc;
  }
  return kSuccess;
}

// Where a local copy reads and writes: from this rank's own send block
// `from` (a self edge; allgather's own block is block 0) or from slot
// `from` (a duplicate edge's home slot), into slot `to`.
struct CopyEnds {
  bool own = false;
  std::size_t from = 0;
  std::size_t to = 0;
};
inline CopyEnds copy_ends(const algos::LocalCopy& c) {
  const bool own = c.from_out_edge >= 0 || c.from_slot < 0;
  const int from = c.from_out_edge >= 0 ? c.from_out_edge : own ? 0 : c.from_slot;
  return {own, static_cast<std::size_t>(from), static_cast<std::size_t>(c.to_slot)};
}

// One local copy by bytes through `copy` (a transport's copy_local: the
// bytes may lie on a device): as many as both blocks hold.
template <class Copy>
int copy_one_by_bytes(const BlockTable& blocks, const CopyEnds& e, Copy&& copy) {
  const std::uint64_t from_bytes = e.own ? blocks.send_size(e.from) : blocks.slot_bytes[e.from];
  const char* from = e.own ? blocks.send(e.from) : blocks.slot_data[e.from];
  const std::uint64_t bytes = std::min(from_bytes, blocks.slot_bytes[e.to]);
  if (bytes == 0) return kSuccess;
  return copy(blocks.slot_data[e.to], from, bytes, e.own);
}

// The local copies of a call's chosen variants, made once every fragment is
// in place. The first error, or success.
template <class Copy>
int local_copies(const algos::Schedule& schedule, const CallChoice& choice, const BlockTable& blocks, Copy&& copy) {
  return for_each_local_copy(schedule, choice,
                             [&](const algos::LocalCopy& c) { return copy_one_by_bytes(blocks, copy_ends(c), copy); });
}

template <class Transport>
class Engine {
 public:
  // Everything given must outlive the engine.
  Engine(const algos::Schedule& schedule, const CallChoice& choice, const BlockTable& blocks, BundleStore& store,
         EngineScratch& scratch, Transport& transport)
      : schedule_(schedule),
        plan_(schedule.mixed.plan),
        choice_(choice),
        blocks_(blocks),
        scratch_(scratch),
        transport_(transport),
        bundles_(schedule, choice, blocks, store, scratch.bundle_waits, transport, outcome_) {}
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void start();
  // Advances the call; `block`: may wait inside the transport. True once
  // done: every message completed and the local copies made.
  bool step(bool block);
  // Success or the call's first error.
  [[nodiscard]] int error() const { return outcome_.first_error; }

  // ---- for the transport ------------------------------------------------
  [[nodiscard]] const algos::Schedule& schedule() const { return schedule_; }
  [[nodiscard]] const BlockTable& blocks() const { return blocks_; }
  [[nodiscard]] const EngineScratch& scratch() const { return scratch_; }
  [[nodiscard]] const std::vector<int>& active_recvs() const { return *active_recvs_; }
  [[nodiscard]] const std::vector<int>& active_sends() const { return *active_sends_; }
  void note(int rc) { outcome_.note(rc); }
  // Receive r brought `got` bytes: whether that is short of its range (then
  // the call fails with kErrShort, logged once).
  bool came_short(std::size_t r, std::uint64_t got) {
    if (!outcome_.came_short(got, scratch_.recv_range[r].size(), plan_.recvs[r].peer)) return false;
    note(Transport::kErrShort);
    return true;
  }
  // Receive r is in its final place, or known missing: its forwards go out
  // now (after an error too, passing on what is known), so no peer waits.
  void arrived(std::size_t r, bool missing) {
    if (missing) scratch_.missing[r] = 1;
    for (const int s : schedule_.deps.forwards[r]) post_send(static_cast<std::size_t>(s));
    transport_.after_arrival(r, *this);
  }
  // A bundle message completed (head: the first, with the sizes).
  void bundle_head(std::size_t b, int error) { bundles_.on_head(b, error); }
  void bundle_rest(std::size_t b, int error) { bundles_.on_rest(b, error); }

 private:
  void select_active();
  std::size_t setup();
  void post_send(std::size_t s);
  bool finish();

  const algos::Schedule& schedule_;
  const algos::Plan& plan_;
  const CallChoice& choice_;
  const BlockTable& blocks_;
  EngineScratch& scratch_;
  Transport& transport_;
  Outcome outcome_;
  BundleFlow<Transport> bundles_;
  // The receives, sends and own sends of this call's chosen variants, in plan order.
  const std::vector<int>* active_recvs_ = nullptr;
  const std::vector<int>* active_sends_ = nullptr;
  const std::vector<int>* active_own_sends_ = nullptr;
  bool forwards_ = false;  // some active receive is forwarded, or bundles arrive to be taken apart
  bool done_ = false;
};

template <class Transport>
void Engine<Transport>::select_active() {
  const std::vector<algos::Variant>& v = choice_.variant;
  if (!v.empty() && std::all_of(v.begin(), v.end(), [&](algos::Variant x) { return x == v[0]; })) {
    const auto i = static_cast<std::size_t>(v[0]);
    active_recvs_ = &schedule_.recvs_of[i];
    active_sends_ = &schedule_.sends_of[i];
    active_own_sends_ = &schedule_.own_sends_of[i];
    return;
  }
  const algos::MixedPlan& m = schedule_.mixed;
  scratch_.active_recvs.clear();
  scratch_.active_sends.clear();
  scratch_.active_own_sends.clear();
  for (std::size_t i = 0; i < plan_.recvs.size(); ++i) {
    if (algos::chosen(m.recv_variant[i], m.recv_unit[i], v)) scratch_.active_recvs.push_back(static_cast<int>(i));
  }
  for (std::size_t i = 0; i < plan_.sends.size(); ++i) {
    if (algos::chosen(m.send_variant[i], m.send_unit[i], v)) scratch_.active_sends.push_back(static_cast<int>(i));
  }
  for (const int s : schedule_.deps.own_sends) {
    const auto i = static_cast<std::size_t>(s);
    if (algos::chosen(m.send_variant[i], m.send_unit[i], v)) scratch_.active_own_sends.push_back(s);
  }
  active_recvs_ = &scratch_.active_recvs;
  active_sends_ = &scratch_.active_sends;
  active_own_sends_ = &scratch_.active_own_sends;
}

// This call's byte range of every active fragment; the number of messages
// the engine posts at most.
template <class Transport>
std::size_t Engine<Transport>::setup() {
  select_active();
  const std::size_t nr = plan_.recvs.size();
  scratch_.recv_range.assign(nr, {});
  scratch_.missing.assign(nr, 0);
  for (const int active : *active_recvs_) {
    const auto i = static_cast<std::size_t>(active);
    const algos::Recv& r = plan_.recvs[i];
    scratch_.recv_range[i] = algos::share_bytes(r.share, blocks_.slot_bytes[static_cast<std::size_t>(r.slot)]);
    if (!schedule_.deps.forwards[i].empty()) forwards_ = true;
  }
  scratch_.send_range.assign(plan_.sends.size(), {});
  for (const int active : *active_sends_) {
    const auto i = static_cast<std::size_t>(active);
    const algos::Send& s = plan_.sends[i];
    const std::uint64_t block =
        s.out_edge >= 0 ? blocks_.send_size(static_cast<std::size_t>(s.out_edge)) : blocks_.block_size(s.slot);
    scratch_.send_range[i] = algos::share_bytes(s.share, block);
  }
  std::size_t messages = nr + active_sends_->size();
  if (choice_.bundles) {
    messages += bundles_.setup();
    if (!plan_.bundle_recvs.empty()) forwards_ = true;  // every bundle received is taken apart
  }
  return messages;
}

template <class Transport>
void Engine<Transport>::start() {
  transport_.prepare(*this, setup());
  // Every receive is posted before any send, so no order of arrival can deadlock.
  for (const int r : *active_recvs_) {
    const auto i = static_cast<std::size_t>(r);
    const algos::ByteRange range = scratch_.recv_range[i];
    char* data =
        blocks_.hollow ? nullptr : blocks_.slot_data[static_cast<std::size_t>(plan_.recvs[i].slot)] + range.begin;
    note(transport_.post_recv(i, data, range.size()));
  }
  if (choice_.bundles) bundles_.post_receives();
  for (const int s : *active_own_sends_) post_send(static_cast<std::size_t>(s));
  if (choice_.bundles) bundles_.post_ready_sends();
}

// Send s: from the own block, an out-edge's block, or (a forward) the slot
// its receive filled. A forward of a receive that came short or missing, and
// every send of a hollow rank, is "lost": the transport passes that on.
template <class Transport>
void Engine<Transport>::post_send(std::size_t s) {
  const algos::Send& send = plan_.sends[s];
  const algos::ByteRange range = scratch_.send_range[s];
  const char* source =
      send.out_edge >= 0 ? blocks_.send(static_cast<std::size_t>(send.out_edge)) : blocks_.block(send.slot);
  const bool lost =
      blocks_.hollow || (send.after_recv >= 0 && scratch_.missing[static_cast<std::size_t>(send.after_recv)] != 0);
  note(transport_.post_send(s, blocks_.hollow ? nullptr : source + range.begin, range.size(), lost));
}

template <class Transport>
bool Engine<Transport>::step(bool block) {
  if (done_) return true;
  if constexpr (!Transport::kEveryArrival) {
    if (!forwards_) {
      if (!transport_.complete_all(block, *this)) return false;
      return finish();
    }
  }
  while (!transport_.settled() && transport_.progress(block, *this) && block) {
  }
  if (block && !transport_.settled()) transport_.give_up();  // nothing more can complete
  if (!transport_.settled()) return false;
  return finish();
}

// Every message completed: the local copies, unless the call failed already.
template <class Transport>
bool Engine<Transport>::finish() {
  done_ = true;
  if (outcome_.first_error == kSuccess && !blocks_.hollow) {
    note(local_copies(schedule_, choice_, blocks_, [this](char* to, const char* from, std::uint64_t n, bool own) {
      return transport_.copy_local(to, from, n, own);
    }));
  }
  return true;
}

}  // namespace nbrcoll::engine
