// The schedule engine without MPI: every rank of a random communicator runs
// its compiled schedule (algos/schedule.h) through engine::Engine over a
// fake transport that delivers messages in random orders
// (fake_network.h). Every receive slot is checked byte for byte against
// its closed form (the origin's send block, or for alltoall the block of
// the out-edge MPI pairs with the slot), with guard bytes around every
// slot, for every variant alone, per-origin (per-edge) mixes, with and
// without bundles; the simulator must accept the same plans. Adversarial
// runs: a rank that cannot prepare its buffers (hollow) and a block whose
// two ends disagree on its size must end without a hang, every rank that
// reports success holding exactly its bytes.
// NBRCOLL_TEST_SEED and NBRCOLL_ENGINE_CASES change the corpus.
#include "engine/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>

#include "algos/linear_plan.h"
#include "algos/schedule.h"
#include "algos/simulator.h"
#include "algos/testing/random_cases.h"
#include "tests/unit/engine/fake_network.h"

namespace nbrcoll::engine::testing {
namespace {

using algos::CommGraph;
using algos::Variant;
using algos::testing::chance;
using algos::testing::pick;
using algos::testing::Rng;

constexpr std::uint64_t kGuard = 16;
constexpr char kGuardByte = static_cast<char>(0xA5);
constexpr char kUnwritten = static_cast<char>(0xEE);

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? fallback : std::strtoull(v, nullptr, 0);
}

// How a call picks variants on every rank.
enum class Mix { kLinear, kLeader, kAggregated, kPerBlock };

// One rank's call: its schedule, choice, buffers (guarded), engine.
struct RankCall {
  algos::Schedule schedule;
  CallChoice choice;
  BlockTable blocks;
  std::vector<std::vector<char>> send;      // per send block
  std::vector<char> recv;                   // every slot, a guard before each and after the last
  std::vector<std::uint64_t> slot_at;       // offset of each slot in `recv`
  std::vector<std::vector<char>> expected;  // per slot
  BundleStore store;
  EngineScratch scratch;
  std::unique_ptr<FakeTransport> transport;
  std::unique_ptr<Engine<FakeTransport>> engine;
  bool done = false;
};

struct Call {
  bool alltoall = false;
  // Allgather: block size of each origin. Alltoall: per rank, per out-edge.
  std::vector<std::uint64_t> block;
  std::vector<std::vector<std::uint64_t>> edge;
  Mix mix = Mix::kLinear;
  bool bundles = false;
  int hollow = -1;  // this rank cannot prepare its buffers
  // An erroneous program: this rank's slot `short_slot` expects `short_by`
  // bytes more than its sender sends (-1: none).
  int short_rank = -1;
  int short_slot = -1;
};

std::vector<algos::Schedule> compile(const CommGraph& g, bool alltoall) {
  std::vector<int> node_of;
  for (const algos::RankPlace& p : g.places) node_of.push_back(p.node);
  std::vector<algos::Schedule> out;
  for (const algos::PlanInput& in : algos::make_plan_inputs(g)) {
    algos::MixedPlan mixed;
    if (alltoall) {
      const algos::Plan linear = algos::build_linear_alltoall_plan(in);
      const algos::Plan aggregated = algos::build_aggregated_alltoall_plan(in);
      mixed = algos::mix_plans({{Variant::kLinear, &linear}, {Variant::kAggregated, &aggregated}}, in.in, in.out.size(),
                               true);
    } else {
      const algos::Plan linear = algos::build_linear_plan(in);
      const algos::Plan leader = algos::build_leader_plan(in);
      const algos::Plan aggregated = algos::build_aggregated_plan(in);
      mixed = algos::mix_plans(
          {{Variant::kLinear, &linear}, {Variant::kLeader, &leader}, {Variant::kAggregated, &aggregated}}, in.in,
          in.out.size(), false);
    }
    out.push_back(algos::compile_schedule(std::move(mixed), node_of));
  }
  return out;
}

// The out-edge of `s` that MPI pairs with slot `slot` of `d`: the k-th
// occurrence of s in d's in-list with the k-th occurrence of d in s's out-list.
std::size_t paired_edge(const CommGraph& g, int d, std::size_t slot) {
  const std::vector<int>& in = g.in[static_cast<std::size_t>(d)];
  const int s = in[slot];
  int k = 0;
  for (std::size_t i = 0; i < slot; ++i) k += in[i] == s ? 1 : 0;
  const std::vector<int>& out = g.out[static_cast<std::size_t>(s)];
  for (std::size_t j = 0; j < out.size(); ++j) {
    if (out[j] == d && k-- == 0) return j;
  }
  ADD_FAILURE() << "no out-edge of " << s << " pairs with slot " << slot << " of " << d;
  return 0;
}

// A unit's block, named the same way by both of its ends: the origin
// (allgather) or the edge's (origin, destination, occurrence).
std::uint64_t unit_key(const CommGraph& g, int r, const algos::Unit& u, bool alltoall) {
  const std::vector<int>& in = g.in[static_cast<std::size_t>(r)];
  if (!alltoall) return static_cast<std::uint64_t>(u.send_block >= 0 ? r : in[static_cast<std::size_t>(u.slot)]);
  int s = r;
  int d = 0;
  int k = 0;
  if (u.send_block >= 0) {
    const std::vector<int>& out = g.out[static_cast<std::size_t>(r)];
    d = out[static_cast<std::size_t>(u.send_block)];
    for (int j = 0; j < u.send_block; ++j) k += out[static_cast<std::size_t>(j)] == d ? 1 : 0;
  } else {
    s = in[static_cast<std::size_t>(u.slot)];
    d = r;
    for (int i = 0; i < u.slot; ++i) k += in[static_cast<std::size_t>(i)] == s ? 1 : 0;
  }
  return (static_cast<std::uint64_t>(s) * 1000003 + static_cast<std::uint64_t>(d)) * 131 +
         static_cast<std::uint64_t>(k);
}

Variant variant_for(const Call& call, std::uint64_t key, std::uint64_t salt) {
  switch (call.mix) {
    case Mix::kLinear:
      return Variant::kLinear;
    case Mix::kLeader:
      return call.alltoall ? Variant::kLinear : Variant::kLeader;
    case Mix::kAggregated:
      return Variant::kAggregated;
    case Mix::kPerBlock:
      break;
  }
  // Aggregated blocks travel in bundles; alltoall has no leader plan.
  const int h = static_cast<int>(((key + salt) * 0x9E3779B97F4A7C15ULL) >> 61);  // 0..7
  if (call.alltoall) return call.bundles && h % 2 == 1 ? Variant::kAggregated : Variant::kLinear;
  return static_cast<Variant>(h % (call.bundles ? 3 : 2));
}

void fill(std::vector<char>& bytes, Rng& rng) {
  for (char& c : bytes) c = static_cast<char>(rng());
}

// Runs `call` on every rank of `g` to the end; fails the test on a hang or
// a wrong byte. `errors`: each rank's error.
void run(const CommGraph& g, const std::vector<algos::Schedule>& schedules, const Call& call, Rng& rng,
         const std::string& what, std::vector<int>& errors) {
  errors.clear();
  const int p = g.size();
  FakeNetwork net(p, rng());
  const std::uint64_t salt = rng();
  std::vector<std::unique_ptr<RankCall>> ranks;
  std::vector<std::vector<std::vector<char>>> sent(static_cast<std::size_t>(p));
  // Send blocks first: receivers' expectations are their senders' bytes.
  for (int r = 0; r < p; ++r) {
    auto rc = std::make_unique<RankCall>();
    const auto ur = static_cast<std::size_t>(r);
    const std::size_t blocks = call.alltoall ? g.out[ur].size() : 1;
    for (std::size_t j = 0; j < blocks; ++j) {
      std::vector<char> b(call.alltoall ? call.edge[ur][j] : call.block[ur]);
      fill(b, rng);
      rc->send.push_back(std::move(b));
    }
    sent[ur] = rc->send;
    ranks.push_back(std::move(rc));
  }
  for (int r = 0; r < p; ++r) {
    RankCall& rc = *ranks[static_cast<std::size_t>(r)];
    const auto ur = static_cast<std::size_t>(r);
    rc.schedule = schedules[ur];
    const std::vector<int>& in = g.in[ur];
    // Receive slots with guards; kNoRank slots nowhere (as the layout has them).
    std::vector<std::uint64_t> room;  // each slot's size as this rank declares it
    std::uint64_t at = kGuard;
    for (std::size_t i = 0; i < in.size(); ++i) {
      std::vector<char> want;
      if (in[i] != algos::kNoRank) {
        const auto s = static_cast<std::size_t>(in[i]);
        want = call.alltoall ? sent[s][paired_edge(g, r, i)] : sent[s][0];
      }
      // An erroneous program: this slot expects more than its sender sends.
      room.push_back(want.size() + (r == call.short_rank && static_cast<int>(i) == call.short_slot ? 7 : 0));
      rc.slot_at.push_back(at);
      at += room.back() + kGuard;
      rc.expected.push_back(std::move(want));
    }
    rc.recv.assign(at, kGuardByte);
    BlockTable& b = rc.blocks;
    for (const std::vector<char>& s : rc.send) {
      b.send_data.push_back(s.data());
      b.send_bytes.push_back(s.size());
    }
    for (std::size_t i = 0; i < in.size(); ++i) {
      const bool null = in[i] == algos::kNoRank;
      b.slot_data.push_back(null ? nullptr : rc.recv.data() + rc.slot_at[i]);
      b.slot_bytes.push_back(null ? 5 : room[i]);
      if (!null) std::fill_n(rc.recv.data() + rc.slot_at[i], room[i], kUnwritten);
    }
    if (r == call.hollow) {
      b.hollow = true;
      std::fill(b.send_data.begin(), b.send_data.end(), nullptr);
      std::fill(b.send_bytes.begin(), b.send_bytes.end(), 0);
      std::fill(b.slot_data.begin(), b.slot_data.end(), nullptr);
      std::fill(b.slot_bytes.begin(), b.slot_bytes.end(), 0);
    }
    rc.choice.bundles = call.bundles;
    for (const algos::Unit& u : rc.schedule.mixed.units)
      rc.choice.variant.push_back(variant_for(call, unit_key(g, r, u, call.alltoall), salt));
    rc.transport = std::make_unique<FakeTransport>(r, rc.schedule.mixed.plan, net);
    rc.engine =
        std::make_unique<Engine<FakeTransport>>(rc.schedule, rc.choice, rc.blocks, rc.store, rc.scratch, *rc.transport);
  }
  std::vector<int> order(static_cast<std::size_t>(p));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (const int r : order) ranks[static_cast<std::size_t>(r)]->engine->start();
  int left = p;
  std::vector<char> stepped_once(static_cast<std::size_t>(p), 0);
  while (left > 0) {
    std::shuffle(order.begin(), order.end(), rng);
    for (const int r : order) {
      RankCall& rc = *ranks[static_cast<std::size_t>(r)];
      char& once = stepped_once[static_cast<std::size_t>(r)];
      if (rc.done || (once != 0 && !net.has_completed(r))) continue;
      once = 1;
      if ((rc.done = rc.engine->step(false))) --left;
    }
    if (left == 0) break;
    if (!net.deliver_some(static_cast<std::size_t>(pick(rng, 1, 16)))) {
      bool pending = false;
      for (int r = 0; r < p; ++r) pending = pending || net.has_completed(r);
      if (!pending) FAIL() << "hang: " << left << " ranks never finish: " << what;
    }
  }
  EXPECT_EQ(net.unmatched(), 0u) << what;
  for (int r = 0; r < p; ++r) {
    const RankCall& rc = *ranks[static_cast<std::size_t>(r)];
    errors.push_back(rc.engine->error());
    const bool success = rc.engine->error() == 0 && r != call.hollow;
    for (std::size_t i = 0; i < rc.expected.size(); ++i) {
      const char* slot = rc.recv.data() + rc.slot_at[i];
      for (std::uint64_t k = 0; k < kGuard; ++k) {
        ASSERT_EQ(slot[static_cast<std::ptrdiff_t>(k) - static_cast<std::ptrdiff_t>(kGuard)], kGuardByte)
            << "guard before slot " << i << " of rank " << r << " written: " << what;
      }
      if (!success || r == call.hollow) continue;
      // (An empty block's data() may be null, which memcmp must not get.)
      ASSERT_TRUE(rc.expected[i].empty() || std::memcmp(slot, rc.expected[i].data(), rc.expected[i].size()) == 0)
          << "slot " << i << " of rank " << r << " (from " << g.in[static_cast<std::size_t>(r)][i]
          << ") differs from its closed form: " << what;
    }
    for (std::uint64_t k = 0; k < kGuard; ++k) ASSERT_EQ(rc.recv[rc.recv.size() - 1 - k], kGuardByte) << what;
  }
}

std::string mix_name(const Call& c) {
  const char* names[] = {"linear", "leader", "aggregated", "per block"};
  return std::string(names[static_cast<int>(c.mix)]) + (c.bundles ? " with bundles" : " without bundles");
}

// A call of case `c` with its block sizes: one of the case's two allgather
// size sets, or random alltoall edge sizes.
Call sized_call(const algos::testing::RandomCase& c, bool alltoall, Rng& rng) {
  Call call;
  call.alltoall = alltoall;
  if (alltoall) {
    call.edge = algos::testing::random_edge_bytes(rng, c.graph);
  } else {
    call.block = c.blocks[static_cast<std::size_t>(pick(rng, 0, 1))];
  }
  return call;
}

// Every correct call of a case: each variant alone and per-block mixes,
// with and without bundles; every rank must succeed.
void check_correct_calls(const algos::testing::RandomCase& c, bool alltoall, Rng& rng, const std::string& what) {
  const std::vector<algos::Schedule> schedules = compile(c.graph, alltoall);
  Call call = sized_call(c, alltoall, rng);
  for (const Mix mix : {Mix::kLinear, Mix::kLeader, Mix::kAggregated, Mix::kPerBlock}) {
    for (const bool bundles : {false, true}) {
      if (mix == Mix::kAggregated && !bundles) continue;  // aggregated blocks travel in bundles
      call.mix = mix;
      call.bundles = bundles;
      const std::string label = what + ", " + mix_name(call);
      std::vector<int> errors;
      run(c.graph, schedules, call, rng, label, errors);
      if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) return;
      for (std::size_t r = 0; r < errors.size(); ++r) ASSERT_EQ(errors[r], 0) << "rank " << r << ": " << label;
      // The simulator accepts the plans this call ran.
      std::vector<algos::MixedPlan> mixed;
      std::vector<std::vector<Variant>> choices;
      for (std::size_t r = 0; r < schedules.size(); ++r) {
        mixed.push_back(schedules[r].mixed);
        std::vector<Variant>& v = choices.emplace_back();
        for (const algos::Unit& u : schedules[r].mixed.units)
          v.push_back(variant_for(call, unit_key(c.graph, static_cast<int>(r), u, alltoall), 0));
      }
      if (call.mix != Mix::kPerBlock) {
        const algos::SimResult sim = alltoall ? algos::simulate_mixed_alltoall(c.graph, mixed, choices, call.edge)
                                              : algos::simulate_mixed(c.graph, mixed, choices, call.block);
        ASSERT_TRUE(sim.ok()) << label << ": " << (sim.errors.empty() ? "" : sim.errors.front());
      }
    }
  }
}

class EngineRandom : public ::testing::TestWithParam<bool> {};

TEST_P(EngineRandom, EveryVariantAndMixDeliversEveryByteInAnyOrder) {
  const bool alltoall = GetParam();
  const std::uint64_t seed = env_number("NBRCOLL_TEST_SEED", 20261125) + (alltoall ? 7 : 0);
  const auto cases = static_cast<int>(env_number("NBRCOLL_ENGINE_CASES", 200));
  int checked = 0;
  for (int i = 0; i < cases; ++i) {
    Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i));
    const algos::testing::RandomCase c = algos::testing::random_case(rng);
    if (!algos::validate_graph(c.graph).empty() || c.graph.size() > 48) continue;
    std::uint64_t edges = 0;
    for (const auto& out : c.graph.out) edges += out.size();
    if (edges > 1500) continue;  // keep the byte buffers of a case small
    check_correct_calls(c, alltoall, rng, "case " + std::to_string(i) + ": " + c.what);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
    ++checked;
  }
  std::printf("engine: %d random %s cases, every variant and mix, in random delivery orders\n", checked,
              alltoall ? "alltoall" : "allgather");
  EXPECT_GT(checked, cases / 3);
}

INSTANTIATE_TEST_SUITE_P(Collectives, EngineRandom, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "alltoall" : "allgather"; });

// A rank that cannot prepare its buffers runs hollow (empty messages): no
// rank hangs, and a rank that expected a non-empty block of it, directly or
// through a forwarder or a bundle, must not report success.
TEST(EngineAdversarial, HollowRankFailsItsReceiversAndHangsNobody) {
  const std::uint64_t seed = env_number("NBRCOLL_TEST_SEED", 20261125) + 3;
  int checked = 0;
  for (int i = 0; i < 150; ++i) {
    Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i));
    const algos::testing::RandomCase c = algos::testing::random_case(rng);
    if (!algos::validate_graph(c.graph).empty() || c.graph.size() > 32 || c.graph.size() < 2) continue;
    const bool alltoall = chance(rng, 0.3);
    const std::vector<algos::Schedule> schedules = compile(c.graph, alltoall);
    Call call = sized_call(c, alltoall, rng);
    call.mix = static_cast<Mix>(pick(rng, 0, 3));
    call.bundles = call.mix == Mix::kAggregated || chance(rng, 0.5);
    call.hollow = pick(rng, 0, c.graph.size() - 1);
    const std::string what = "case " + std::to_string(i) + ": " + c.what + ", " + mix_name(call) + ", hollow rank " +
                             std::to_string(call.hollow);
    std::vector<int> errors;
    run(c.graph, schedules, call, rng, what, errors);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
    const auto h = static_cast<std::size_t>(call.hollow);
    for (int r = 0; r < c.graph.size(); ++r) {
      if (r == call.hollow) continue;
      const std::vector<int>& in = c.graph.in[static_cast<std::size_t>(r)];
      bool expects = false;
      for (std::size_t k = 0; k < in.size(); ++k) {
        if (in[k] != call.hollow) continue;
        const std::uint64_t bytes = alltoall ? call.edge[h][paired_edge(c.graph, r, k)] : call.block[h];
        expects = expects || bytes > 0;
      }
      if (expects) {
        EXPECT_NE(errors[static_cast<std::size_t>(r)], 0) << "rank " << r << " succeeded: " << what;
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

// An erroneous program: one receive slot expects 7 bytes more than its
// sender sends. Nobody hangs, the rank that holds it (and only ranks whose
// slots came through it) reports an error; every rank that reports success
// has exactly its bytes (checked in run()).
TEST(EngineAdversarial, ShortBlockFailsItsReceiverAndHangsNobody) {
  const std::uint64_t seed = env_number("NBRCOLL_TEST_SEED", 20261125) + 5;
  int checked = 0;
  for (int i = 0; i < 150; ++i) {
    Rng rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(i));
    const algos::testing::RandomCase c = algos::testing::random_case(rng);
    if (!algos::validate_graph(c.graph).empty() || c.graph.size() > 32) continue;
    Call call;
    call.block = c.blocks[0];
    call.mix = static_cast<Mix>(pick(rng, 0, 2));
    call.bundles = call.mix == Mix::kAggregated;
    // A slot that a message fills: from another rank, the first of its
    // origin (a self edge, and under leader a duplicate's further slots,
    // are local copies, which no message checks, as in MPI's own).
    std::vector<std::pair<int, int>> slots;
    for (int r = 0; r < c.graph.size(); ++r) {
      const std::vector<int>& in = c.graph.in[static_cast<std::size_t>(r)];
      for (std::size_t k = 0; k < in.size(); ++k) {
        if (in[k] != algos::kNoRank && in[k] != r &&
            std::find(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(k), in[k]) ==
                in.begin() + static_cast<std::ptrdiff_t>(k))
          slots.emplace_back(r, static_cast<int>(k));
      }
    }
    if (slots.empty()) continue;
    std::tie(call.short_rank, call.short_slot) =
        slots[static_cast<std::size_t>(pick(rng, 0, static_cast<int>(slots.size()) - 1))];
    const std::vector<algos::Schedule> schedules = compile(c.graph, false);
    const std::string what = "case " + std::to_string(i) + ": " + c.what + ", " + mix_name(call) + ", rank " +
                             std::to_string(call.short_rank) + " slot " + std::to_string(call.short_slot) + " short";
    std::vector<int> errors;
    run(c.graph, schedules, call, rng, what, errors);
    if (HasFatalFailure() || HasNonfatalFailure()) return;
    EXPECT_NE(errors[static_cast<std::size_t>(call.short_rank)], 0) << what;
    ++checked;
  }
  EXPECT_GT(checked, 30);
}

}  // namespace
}  // namespace nbrcoll::engine::testing
