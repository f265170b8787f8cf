#include "call/tally.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "call/operation.h"
#include "report/run_counters.h"

namespace nbrcoll {

namespace {

using algos::Variant;

static_assert(kKindCount == report::kKinds && report::kModes == 3);
static_assert(kHandoffCount <= report::kHandoffSlots);
static_assert(algos::kVariantCount == static_cast<int>(report::kMixedPlan));

// The plan of a call that ran variants: its one variant, or mixed.
unsigned plan_of_variants(const std::vector<Variant>& v) {
  const bool one = std::all_of(v.begin(), v.end(), [&](Variant x) { return x == v[0]; });
  return one ? static_cast<unsigned>(v[0]) : report::kMixedPlan;
}

// The plan the call ran, as the report names it (the linear test inline:
// most calls are linear, and a call with the report on pays this).
inline unsigned plan_of(const Decision& d, const engine::CallChoice& choice) {
  if (d.path == Path::kLinear || choice.variant.empty()) return static_cast<unsigned>(Variant::kLinear);
  return plan_of_variants(choice.variant);
}

unsigned link_index(algos::LinkClass link) {
  return static_cast<unsigned>(link);
}

// Owns a tracked call's owner and adds the call's bytes when let go.
struct BytesAtEnd {
  std::shared_ptr<Operation> op;
  std::shared_ptr<void> owner;
  BytesAtEnd(std::shared_ptr<Operation> o, std::shared_ptr<void> w) : op(std::move(o)), owner(std::move(w)) {}
  BytesAtEnd(const BytesAtEnd&) = delete;
  BytesAtEnd& operator=(const BytesAtEnd&) = delete;
  ~BytesAtEnd() {
    if (op->done()) tally_bytes(*op);
  }
};

report::CallTally call_tally(Kind kind, Mode mode, const Operation& op, std::uint64_t ticks) {
  return {static_cast<unsigned>(kind), static_cast<unsigned>(mode), plan_of(op.decision(), op.scratch().choice), ticks};
}

// Every send of the call's chosen variants: its share of its block (a
// forward: the slot it received into), as the engine posts it
// (engine/engine.h: setup); bundles: header and payload, as the engine
// wrote them (engine/bundle_flow.h). The linear plan's sends: the same for
// every send of the linear variant, which has one per edge.
report::LinkBytes count_bytes(const Operation& op) {
  const algos::Schedule& schedule = op.schedule();
  const algos::Plan& plan = schedule.mixed.plan;
  const CallScratch& s = op.scratch();
  const engine::BlockTable& blocks = s.layout.blocks();
  const auto bytes_of = [&](std::size_t i) {
    const algos::Send& x = plan.sends[i];
    const std::uint64_t block =
        x.out_edge >= 0 ? blocks.send_size(static_cast<std::size_t>(x.out_edge)) : blocks.block_size(x.slot);
    return algos::share_bytes(x.share, block).size();
  };
  std::uint64_t sent[report::kLinkClasses] = {};
  std::uint64_t linear[report::kLinkClasses] = {};
  for (const int i : schedule.sends_of[static_cast<std::size_t>(Variant::kLinear)]) {
    const auto k = static_cast<std::size_t>(i);
    linear[link_index(plan.sends[k].link)] += bytes_of(k);
  }
  const std::vector<Variant>& v = s.choice.variant;
  if (op.decision().path == Path::kLinear) {
    std::copy(std::begin(linear), std::end(linear), std::begin(sent));  // the same sends
  } else if (!v.empty() && std::all_of(v.begin(), v.end(), [&](Variant x) { return x == v[0]; })) {
    for (const int i : schedule.sends_of[static_cast<std::size_t>(v[0])]) {
      const auto k = static_cast<std::size_t>(i);
      sent[link_index(plan.sends[k].link)] += bytes_of(k);
    }
  } else if (!v.empty()) {
    const algos::MixedPlan& m = schedule.mixed;
    for (std::size_t k = 0; k < plan.sends.size(); ++k) {
      if (algos::chosen(m.send_variant[k], m.send_unit[k], v)) sent[link_index(plan.sends[k].link)] += bytes_of(k);
    }
  }
  if (s.choice.bundles) {
    for (std::size_t b = 0; b < plan.bundle_sends.size() && b < s.bundles.out.size(); ++b) {
      const char* header = s.bundles.out[b].data();
      if (header == nullptr) continue;
      const std::size_t pieces = plan.bundle_sends[b].pieces.size();
      std::uint64_t bytes = algos::bundle_header_bytes(pieces);
      for (std::size_t p = 0; p < pieces; ++p) {
        std::uint64_t size = 0;
        std::memcpy(&size, header + 8 * p, sizeof size);
        if (size != algos::kAbsentPiece) bytes += size;
      }
      sent[link_index(plan.bundle_sends[b].link)] += bytes;
    }
  }
  report::LinkBytes counted;
  counted.assign(sent, linear);
  return counted;
}

// A repeat of the call before it on the same scratch (call/repeat.h), and
// every start of a persistent call, keeps the layout and so sends the same
// bytes: counted once per layout.
const report::LinkBytes& bytes_of_layout(const Operation& op) {
  const CallScratch& s = op.scratch();
  TalliedBytes& kept = s.tallied;
  if (kept.layout_generation != s.layout_generation) {
    kept.bytes = count_bytes(op);
    kept.layout_generation = s.layout_generation;
  }
  return kept.bytes;
}

}  // namespace

void tally_call(Kind kind, Mode mode, const Operation& op, std::uint64_t ticks) {
  report::add_call(call_tally(kind, mode, op, ticks));
}

void tally_bytes(const Operation& op) {
  report::add_bytes(bytes_of_layout(op));
}

void tally_blocking_call(Kind kind, const Operation& op, std::uint64_t ticks) {
  report::add_call(call_tally(kind, Mode::kBlocking, op, ticks), &bytes_of_layout(op));
}

void tally_handoff(Handoff why) {
  report::add_handoff(static_cast<unsigned>(why));
}

std::shared_ptr<void> tally_bytes_at_end(std::shared_ptr<Operation> op, std::shared_ptr<void> owner) {
  return std::make_shared<BytesAtEnd>(std::move(op), std::move(owner));
}

}  // namespace nbrcoll
