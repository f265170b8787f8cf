// The bundles of a call (the aggregated variant; algos/plan.h): a bundle
// arrives as a header of piece sizes plus the first bytes, and, only when
// the header says so, a second message with the rest; its pieces for this
// rank's slots are copied there, and the bundles that carry its pieces on
// go out once every bundle they draw from has come. A piece the call moves
// by another variant travels absent (kAbsentPiece in the header).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "algos/schedule.h"
#include "engine/blocks.h"
#include "engine/bundle_store.h"
#include "engine/choice.h"
#include "engine/outcome.h"
#include "engine/token.h"
#include "support/log.h"

namespace nbrcoll::engine {

template <class Transport>
class BundleFlow {
 public:
  BundleFlow(const algos::Schedule& schedule, const CallChoice& choice, const BlockTable& blocks, BundleStore& store,
             std::vector<int>& waits, Transport& transport, Outcome& outcome)
      : schedule_(schedule),
        plan_(schedule.mixed.plan),
        choice_(choice),
        blocks_(blocks),
        store_(store),
        waits_(waits),
        transport_(transport),
        outcome_(outcome) {}

  // Before the call's first message: the store sized, every send's waits
  // reset. The number of messages the bundles may take.
  std::size_t setup() {
    store_.in.resize(plan_.bundle_recvs.size());
    store_.out.resize(plan_.bundle_sends.size());
    waits_ = schedule_.deps.bundle_waits;
    return 2 * (plan_.bundle_recvs.size() + plan_.bundle_sends.size());
  }
  void post_receives() {
    for (std::size_t b = 0; b < plan_.bundle_recvs.size(); ++b) post_receive(b);
  }
  // The bundle sends that draw from no received bundle.
  void post_ready_sends() {
    for (std::size_t b = 0; b < plan_.bundle_sends.size(); ++b) {
      if (waits_[b] == 0) post_send(b);
    }
  }
  // The first message of bundle receive b completed (with `error`).
  void on_head(std::size_t b, int error);
  // Its second message completed (after an error its pieces are what came).
  void on_rest(std::size_t b, int /*error*/) { arrived(b); }

 private:
  void post_receive(std::size_t b);
  void arrived(std::size_t b);
  void post_send(std::size_t b);

  const algos::Schedule& schedule_;
  const algos::Plan& plan_;
  const CallChoice& choice_;
  const BlockTable& blocks_;
  BundleStore& store_;
  std::vector<int>& waits_;
  Transport& transport_;
  Outcome& outcome_;
};

template <class Transport>
void BundleFlow<Transport>::post_receive(std::size_t b) {
  const algos::BundleRecv& r = plan_.bundle_recvs[b];
  BundleStore::In& in = store_.in[b];
  const std::uint64_t first = algos::bundle_header_bytes(r.pieces.size()) + algos::bundle_prefix_bytes(r.pieces.size());
  in.data.ensure(first);
  // Until a header arrives every piece counts as absent.
  in.size.assign(r.pieces.size(), algos::kAbsentPiece);
  in.offset.assign(r.pieces.size(), 0);
  outcome_.note(
      transport_.post_bytes_recv({Op::kBundleHead, static_cast<int>(b)}, r.peer, r.tag, in.data.data(), first));
}

// The first message: read the sizes; the rest follows in a second message
// only when the payload exceeds the prefix. Nothing usable came after an
// error: what is known (every piece absent) is passed on.
template <class Transport>
void BundleFlow<Transport>::on_head(std::size_t b, int error) {
  if (error != kSuccess) {
    arrived(b);
    return;
  }
  const algos::BundleRecv& r = plan_.bundle_recvs[b];
  BundleStore::In& in = store_.in[b];
  const std::size_t n = r.pieces.size();
  std::uint64_t payload = 0;
  for (std::size_t k = 0; k < n; ++k) {
    std::uint64_t size = 0;
    std::memcpy(&size, in.data.data() + 8 * k, sizeof size);
    in.size[k] = size;
    in.offset[k] = payload;
    if (size != algos::kAbsentPiece) payload += size;
  }
  const std::uint64_t header = algos::bundle_header_bytes(n);
  const std::uint64_t prefix = algos::bundle_prefix_bytes(n);
  if (payload <= prefix) {
    arrived(b);
    return;
  }
  in.data.ensure(header + payload, header + prefix);
  outcome_.note(transport_.post_bytes_recv({Op::kBundleRest, static_cast<int>(b)}, r.peer, r.tag,
                                           in.data.data() + header + prefix, payload - prefix));
}

// A whole bundle is here: its pieces for this rank's slots go there, and
// the bundles that carry its pieces on go out once all their sources came.
template <class Transport>
void BundleFlow<Transport>::arrived(std::size_t b) {
  const algos::BundleRecv& r = plan_.bundle_recvs[b];
  BundleStore::In& in = store_.in[b];
  const std::uint64_t header = algos::bundle_header_bytes(r.pieces.size());
  for (std::size_t k = 0; k < r.pieces.size(); ++k) {
    const int slot = r.slot[k];
    if (slot < 0) continue;
    const bool expected = algos::piece_present(schedule_.mixed.bundle_recv_unit[b][k], choice_.variant);
    const bool present = in.size[k] != algos::kAbsentPiece;
    if (expected != present) {
      // Only an erroneous program gets here: the two ends of a block saw
      // different sizes and chose different variants.
      log(LogLevel::kWarn, "a block from rank %d came %s its bundle (block sizes differ between its two ends)",
          r.pieces[k].origin, present ? "unexpectedly in" : "absent from");
      outcome_.note(Transport::kErrShort);
      continue;
    }
    if (!present || blocks_.hollow) continue;
    const std::uint64_t room = blocks_.slot_bytes[static_cast<std::size_t>(slot)];
    if (in.size[k] > room) outcome_.note(Transport::kErrTruncate);
    // A short piece is carried on as it came: the bundles downstream say the same size.
    if (outcome_.came_short(in.size[k], room, r.pieces[k].origin)) outcome_.note(Transport::kErrShort);
    const std::uint64_t bytes = std::min(in.size[k], room);
    if (bytes > 0)
      std::memcpy(blocks_.slot_data[static_cast<std::size_t>(slot)], in.data.data() + header + in.offset[k], bytes);
  }
  for (const int s : schedule_.deps.bundle_forwards[b]) {
    if (--waits_[static_cast<std::size_t>(s)] == 0) post_send(static_cast<std::size_t>(s));
  }
}

template <class Transport>
void BundleFlow<Transport>::post_send(std::size_t b) {
  const algos::BundleSend& s = plan_.bundle_sends[b];
  const std::vector<int>& unit = schedule_.mixed.bundle_send_unit[b];
  const std::size_t n = s.pieces.size();
  // Sizes and sources first, then one buffer: header + payload.
  std::vector<std::uint64_t> size(n);
  std::vector<const char*> from(n, nullptr);
  std::uint64_t payload = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const algos::PieceSource& f = s.from[k];
    if (f.bundle < 0) {
      const auto block = static_cast<std::size_t>(f.out_edge >= 0 ? f.out_edge : 0);
      size[k] = algos::piece_present(unit[k], choice_.variant) ? blocks_.send_size(block) : algos::kAbsentPiece;
      from[k] = blocks_.hollow ? nullptr : blocks_.send(block);
    } else {
      const auto source = static_cast<std::size_t>(f.bundle);
      BundleStore::In& in = store_.in[source];
      const auto p = static_cast<std::size_t>(f.piece);
      size[k] = in.size[p];
      from[k] = in.data.data() + algos::bundle_header_bytes(plan_.bundle_recvs[source].pieces.size()) + in.offset[p];
    }
    if (size[k] != algos::kAbsentPiece) payload += size[k];
  }
  const std::uint64_t header = algos::bundle_header_bytes(n);
  GrowBuffer& out = store_.out[b];
  out.ensure(header + payload);
  std::uint64_t at = header;
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(out.data() + 8 * k, &size[k], sizeof size[k]);
    if (size[k] == algos::kAbsentPiece || size[k] == 0) continue;
    if (from[k] != nullptr) std::memcpy(out.data() + at, from[k], size[k]);
    at += size[k];
  }
  const std::uint64_t prefix = algos::bundle_prefix_bytes(n);
  const std::uint64_t first = header + std::min(payload, prefix);
  const Token token{Op::kBundleSend, static_cast<int>(b)};
  outcome_.note(transport_.post_bytes_send(token, s.peer, s.tag, out.data(), first));
  if (payload > prefix)
    outcome_.note(transport_.post_bytes_send(token, s.peer, s.tag, out.data() + first, payload - prefix));
}

}  // namespace nbrcoll::engine
