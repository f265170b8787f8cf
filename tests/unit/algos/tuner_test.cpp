// The measured choice (algos/tuner.h): several ranks' tuners driven by the
// same calls, with times from a known truth, agree on every block's
// variant at every call, settle on the truly fastest candidate, follow a
// program into its next size, and stop agreeing.
#include "algos/tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <memory>
#include <vector>

namespace nbrcoll::algos {
namespace {

// Predicted time (ns) per variant: linear a + b*bytes, leader and
// aggregated as given multiples of linear (aggregated's may vary by size).
CostTable table(double leader_factor, const std::function<double(std::uint64_t)>& aggregated_factor) {
  CostTable t;
  t.variants = {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
  t.time_ns.assign(3, {});
  for (const std::uint64_t b : model_sizes()) {
    const double linear = 10000.0 + static_cast<double>(b);
    t.time_ns[0].push_back(static_cast<std::uint64_t>(linear));
    t.time_ns[1].push_back(static_cast<std::uint64_t>(linear * leader_factor));
    t.time_ns[2].push_back(static_cast<std::uint64_t>(linear * aggregated_factor(b)));
  }
  return t;
}

CostTable table(double leader_factor, double aggregated_factor) {
  return table(leader_factor, [aggregated_factor](std::uint64_t) { return aggregated_factor; });
}

// What a block of `bytes` really costs by variant (the truth the ranks measure).
using Truth = std::function<double(Variant, std::uint64_t)>;

// R ranks' tuners on one table; every call the same sizes on every rank
// (or per rank: sizes_of), times from the truth plus a per-rank offset.
struct World {
  CostTable model;
  CostTable offered;
  std::vector<std::unique_ptr<Tuner>> ranks;
  int agreements = 0;
  // What a block of `variant` pays more where the rank's previous call ran
  // it under another variant (none by default), and each rank's previous
  // variants.
  std::function<double(Variant variant)> change_cost;
  std::vector<std::vector<Variant>> previous;
  // What a call pays more where its blocks ran different variants (none by
  // default): both variants' rounds, the slower one setting the pace.
  double mixed_cost = 0;
  // Nonblocking calls (none, 0: blocking): agreements reduced over the
  // deferral's calls, and a call's time recorded once `in_flight` later
  // calls have begun (its trial ticket taken at its start).
  AgreementDeferral deferral;
  std::size_t in_flight = 0;
  std::vector<std::int64_t> pending_sum;
  std::vector<std::vector<std::pair<Tuner::Trial, std::uint64_t>>> unfinished;
  World(const CostTable& m, int r, double factor = kDefaultTuneFactor, AgreementDeferral d = {},
        std::size_t calls_in_flight = 0, std::uint64_t forward_from = 0, unsigned cold = 0)
      : model(m),
        offered(m.offered()),
        previous(static_cast<std::size_t>(r)),
        deferral(d),
        in_flight(calls_in_flight),
        unfinished(static_cast<std::size_t>(r)) {
    for (int i = 0; i < r; ++i)
      ranks.push_back(std::make_unique<Tuner>(model, offered, factor, deferral, forward_from, cold));
  }
  // One call; returns the variant every rank took per size (they must agree).
  std::vector<Variant> call(const std::function<std::vector<std::uint64_t>(int)>& sizes_of, const Truth& truth) {
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      ranks[r]->begin_call();
      // The calls done by now report their times, oldest first.
      auto& mine = unfinished[r];
      while (mine.size() > in_flight) {
        ranks[r]->record(mine.front().first, mine.front().second);
        mine.erase(mine.begin());
      }
    }
    const bool settle = ranks[0]->settle_due();
    for (auto& t : ranks) EXPECT_EQ(t->settle_due(), settle);
    if (settle) {
      EXPECT_EQ(pending_sum.size(), Tuner::payload_size());
      for (auto& t : ranks) t->settle(pending_sum);
      pending_sum.clear();
      ++agreements;
    }
    const bool due = ranks[0]->agreement_due();
    for (auto& t : ranks) EXPECT_EQ(t->agreement_due(), due);
    if (due) {
      std::vector<std::int64_t> sum(Tuner::payload_size(), 0);
      for (auto& t : ranks) {
        const auto p = t->payload();
        for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = std::max(sum[i], p[i]);
      }
      if (deferral.settle > 0) {
        EXPECT_TRUE(pending_sum.empty());
        pending_sum = sum;
      } else {
        for (auto& t : ranks) t->settle(sum);
        ++agreements;
      }
    }
    std::vector<Variant> first;
    const bool bundles = ranks[0]->bundles();
    const bool linear = ranks[0]->linear_everywhere();
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      EXPECT_EQ(ranks[r]->bundles(), bundles);
      EXPECT_EQ(ranks[r]->linear_everywhere(), linear);
      double ns = 0;
      std::vector<Variant> mine;
      const std::vector<std::uint64_t> sizes = sizes_of(static_cast<int>(r));
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const Variant v = ranks[r]->choose(sizes[i]);
        if (v == Variant::kAggregated) {
          EXPECT_TRUE(bundles);
        }
        if (linear) {
          EXPECT_EQ(v, Variant::kLinear) << sizes[i];
        }
        mine.push_back(v);
        ns += truth(v, sizes[i]);
        if (change_cost && i < previous[r].size() && previous[r][i] != v) ns += change_cost(v);
      }
      if (std::adjacent_find(mine.begin(), mine.end(), std::not_equal_to<>()) != mine.end()) ns += mixed_cost;
      previous[r] = mine;
      if (r == 0) first = mine;
      const auto time = static_cast<std::uint64_t>(ns + 100.0 * static_cast<double>(r));
      if (deferral.settle > 0 || in_flight > 0) {
        unfinished[r].emplace_back(ranks[r]->take_trial(), time);
      } else if (ranks[r]->trial()) {
        ranks[r]->end_call(time);
      }
    }
    return first;
  }
};

std::function<std::vector<std::uint64_t>(int)> every_rank(std::vector<std::uint64_t> sizes) {
  return [sizes](int) { return sizes; };
}

TEST(Tuner, BucketsCoverEverySizeInOrder) {
  EXPECT_EQ(tune_bucket(0), 0);
  EXPECT_EQ(tune_bucket(1), 1);
  for (int k = 0; k < kTuneBuckets; ++k) {
    if (k + 1 < kTuneBuckets) {
      EXPECT_EQ(bucket_high(k) + 1, bucket_low(k + 1)) << k;
    }
    if (bucket_high(k) < bucket_low(k)) {  // the upper half of [1, 2) holds no integer
      EXPECT_EQ(k, 2);
      continue;
    }
    EXPECT_EQ(tune_bucket(bucket_low(k)), k) << k;
    if (k + 1 < kTuneBuckets) {
      EXPECT_EQ(tune_bucket(bucket_high(k)), k) << k;
    }
  }
  EXPECT_EQ(tune_bucket(1024), tune_bucket(1448));  // 1024 * sqrt 2 = 1448.2
  EXPECT_NE(tune_bucket(1448), tune_bucket(1449));
  EXPECT_EQ(tune_bucket(~std::uint64_t{0}), kTuneBuckets - 1);
}

TEST(Tuner, CandidatesAreTheVariantsPredictedWithinTheFactor) {
  const CostTable t = table(1.5, 3.0);
  const int k = tune_bucket(4096);
  EXPECT_EQ(tune_candidates(t, k, 2.0), 0b011U);
  EXPECT_EQ(tune_candidates(t, k, 1.2), 0b001U);
  EXPECT_EQ(tune_candidates(t, k, 4.0), 0b111U);
}

TEST(Tuner, AClearModelChoiceIsNeverTried) {
  World w(table(5.0, 6.0), 3);
  const Truth truth = [](Variant v, std::uint64_t) { return v == Variant::kLinear ? 1000.0 : 100.0; };
  for (int c = 0; c < 40; ++c) {
    EXPECT_EQ(w.call(every_rank({4096}), truth), std::vector<Variant>{Variant::kLinear});
    EXPECT_FALSE(w.ranks[0]->trial());
  }
  // Nothing uncertain at any size and no aggregated offered: no agreement.
  EXPECT_EQ(w.ranks[0]->phase(), Tuner::Phase::kClosed);
  EXPECT_EQ(w.agreements, 0);
}

TEST(Tuner, SettlesOnTheMeasuredFastestEveryRankAlike) {
  // The model ranks linear first, the truth leader: trials, then leader.
  World w(table(1.3, 1.6), 4);
  const Truth truth = [](Variant v, std::uint64_t) {
    return v == Variant::kLeader ? 500.0 : v == Variant::kAggregated ? 800.0 : 1000.0;
  };
  bool tried_all = false;
  std::vector<bool> used(kVariantCount, false);
  for (std::uint64_t c = 0; c < kTryCalls; ++c) {
    for (const Variant v : w.call(every_rank({4096, 4000}), truth)) used[static_cast<std::size_t>(v)] = true;
  }
  tried_all = used[0] && used[1] && used[2];
  EXPECT_TRUE(tried_all);
  EXPECT_EQ(w.agreements, 0);
  w.call(every_rank({4096, 4000}), truth);
  EXPECT_EQ(w.agreements, 1);
  for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(4096)), static_cast<int>(Variant::kLeader));
  for (int c = 0; c < 30; ++c)
    EXPECT_EQ(w.call(every_rank({4096, 4000}), truth), (std::vector<Variant>{Variant::kLeader, Variant::kLeader}));
}

TEST(Tuner, AColdVariantIsTimedFromItsSecondRun) {
  // Leader is the fastest, but a process's first kRunCalls calls of it take
  // four times as long. Timed from its first run, aggregated settles; with
  // leader cold, its first run is counted but not timed, the first
  // agreement finds it short of timings, and the second settles on it.
  constexpr int kRanks = 3;
  const unsigned leader = 1U << static_cast<unsigned>(Variant::kLeader);
  for (const unsigned cold : {0U, leader}) {
    World w(table(1.3, 1.6), kRanks, kDefaultTuneFactor, {}, 0, 0, cold);
    int leader_blocks = 0;  // one block a call on every rank, ranks in turn
    const Truth truth = [&leader_blocks](Variant v, std::uint64_t) {
      if (v != Variant::kLeader) return v == Variant::kAggregated ? 800.0 : 1000.0;
      return leader_blocks++ / kRanks < static_cast<int>(kRunCalls) ? 2000.0 : 500.0;
    };
    for (std::uint64_t c = 0; c <= kTryCalls; ++c) w.call(every_rank({4096}), truth);
    EXPECT_EQ(w.agreements, 1);
    const int first = w.ranks[0]->settled(tune_bucket(4096));
    EXPECT_EQ(first, cold == 0 ? static_cast<int>(Variant::kAggregated) : Tuner::kUnsettled);
    for (auto& t : w.ranks) EXPECT_EQ(t->warm(), 7U);
    for (std::uint64_t c = 0; c < kTryCalls; ++c) w.call(every_rank({4096}), truth);
    if (cold != 0) {
      EXPECT_EQ(w.agreements, 2);
      for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(4096)), static_cast<int>(Variant::kLeader));
    }
  }
}

TEST(Tuner, NonblockingCallsAgreeLaterAndEachCallCountsItsOwnTime) {
  // Three calls in flight at a time, each done after the next two began,
  // and agreements reduced from 2 to 8 calls after they are due: every rank
  // still takes the same variant at every call, settles on the truly
  // fastest, and follows the program to its next size.
  World w(table(1.3, 1.6), 4, kDefaultTuneFactor, AgreementDeferral{2, 8}, 2);
  const Truth truth = [](Variant v, std::uint64_t) {
    return v == Variant::kLeader ? 500.0 : v == Variant::kAggregated ? 800.0 : 1000.0;
  };
  for (std::uint64_t c = 0; c < kTryCalls + 8; ++c) w.call(every_rank({4096}), truth);
  EXPECT_EQ(w.agreements, 0);
  w.call(every_rank({4096}), truth);
  EXPECT_EQ(w.agreements, 1);
  for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(4096)), static_cast<int>(Variant::kLeader));
  for (int c = 0; c < 30; ++c) EXPECT_EQ(w.call(every_rank({4096}), truth)[0], Variant::kLeader);
  // The next size: noticed at a watching agreement, tried, settled.
  const Truth aggregated_wins = [](Variant v, std::uint64_t) { return v == Variant::kAggregated ? 300.0 : 900.0; };
  for (int c = 0; c < 300; ++c) w.call(every_rank({200}), aggregated_wins);
  for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(200)), static_cast<int>(Variant::kAggregated));
  EXPECT_EQ(w.call(every_rank({200}), aggregated_wins)[0], Variant::kAggregated);
}

TEST(Tuner, BelowTheForwardingFloorBlocksForwardOnlyWhereTimedFaster) {
  // Leader predicted 3x faster than linear everywhere (outside the factor,
  // so above the floor the model alone takes it) and offered without
  // aggregated, forwarding untimed only from 64 KiB (the MPI's progress
  // loop). Below the floor linear is tried beside leader and taken until
  // the size settles, on what the timings say: linear where the
  // application computes between start and wait (say), leader where it
  // waits at once.
  CostTable model = table(0.3, 0.9);
  model.drop(Variant::kAggregated);
  for (const Variant faster : {Variant::kLinear, Variant::kLeader}) {
    World w(model, 3, kDefaultTuneFactor, AgreementDeferral{}, 0, 64 * 1024);
    const Truth truth = [faster](Variant v, std::uint64_t b) {
      if (b >= 64 * 1024) return v == Variant::kLeader ? 500.0 : 900.0;
      return v == faster ? 500.0 : 900.0;
    };
    std::vector<std::vector<bool>> used(2, std::vector<bool>(kVariantCount, false));
    for (int c = 0; c < 200; ++c) {
      const std::vector<Variant> v = w.call(every_rank({16 * 1024, 128 * 1024}), truth);
      if (c == 0) {
        EXPECT_EQ(v[0], Variant::kLinear);  // the first run is linear's
      }
      for (std::size_t i = 0; i < v.size(); ++i) {
        EXPECT_NE(v[i], Variant::kAggregated);
        used[i][static_cast<std::size_t>(v[i])] = true;
      }
      EXPECT_FALSE(w.ranks[0]->bundles());
    }
    EXPECT_TRUE(used[0][static_cast<std::size_t>(Variant::kLinear)] &&
                used[0][static_cast<std::size_t>(Variant::kLeader)]);
    EXPECT_FALSE(used[1][static_cast<std::size_t>(Variant::kLinear)]);  // above the floor: the model's, untried
    for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(16 * 1024)), static_cast<int>(faster));
    EXPECT_EQ(w.call(every_rank({16 * 1024, 128 * 1024}), truth), (std::vector<Variant>{faster, Variant::kLeader}));
  }
}

TEST(Tuner, NothingUncertainAndNoBundlesMeansNoAgreementEver) {
  // Leader predicted 3x faster than linear everywhere (outside factor 2),
  // no aggregated offered: closed from the start, the model's choice.
  CostTable model = table(0.3, 2.0);
  model.drop(Variant::kAggregated);
  Tuner t(model, model, kDefaultTuneFactor);
  EXPECT_EQ(t.phase(), Tuner::Phase::kClosed);
  for (int c = 0; c < 100; ++c) {
    t.begin_call();
    EXPECT_FALSE(t.agreement_due());
    EXPECT_EQ(t.choose(4096), Variant::kLeader);
    EXPECT_FALSE(t.trial());
  }
  // With aggregated offered, agreements stay (they may turn bundles off).
  const CostTable with = table(0.3, 0.2);
  const CostTable offered = with.offered();
  EXPECT_NE(Tuner(with, offered, kDefaultTuneFactor).phase(), Tuner::Phase::kClosed);
  // Below a forwarding floor, leader predicted faster must be timed first:
  // open; where leader is predicted 3x slower, nothing to try: closed.
  EXPECT_NE(Tuner(model, model, kDefaultTuneFactor, AgreementDeferral{}, std::uint64_t{1} << 42).phase(),
            Tuner::Phase::kClosed);
  CostTable slow = table(3.0, 2.0);
  slow.drop(Variant::kAggregated);
  EXPECT_EQ(Tuner(slow, slow, kDefaultTuneFactor, AgreementDeferral{}, std::uint64_t{1} << 42).phase(),
            Tuner::Phase::kClosed);
}

TEST(Tuner, ATimeThatEndsAfterAnAgreementItsCallPrecededIsDropped) {
  World w(table(1.3, 1.6), 1);
  const Truth truth = [](Variant, std::uint64_t) { return 1000.0; };
  for (std::uint64_t c = 0; c < kTryCalls - 1; ++c) w.call(every_rank({4096}), truth);
  Tuner& t = *w.ranks[0];
  t.begin_call();
  ASSERT_FALSE(t.agreement_due());
  t.choose(4096);
  ASSERT_TRUE(t.trial());
  const Tuner::Trial before = t.take_trial();
  EXPECT_FALSE(t.trial());
  t.begin_call();
  ASSERT_TRUE(t.agreement_due());
  t.settle(t.payload());
  // Its bucket is short of timings at every candidate: still unsettled and
  // trying, with no samples; the late time must not become one.
  ASSERT_EQ(t.phase(), Tuner::Phase::kTrying);
  const auto empty = t.payload();
  for (int i = 0; i < 20; ++i) t.record(before, 1);
  EXPECT_EQ(t.payload(), empty);
}

TEST(Tuner, TimesEachVariantAsAProgramThatRepeatsItRunsIt) {
  // Aggregated is the fastest when repeated, but a call that follows
  // another variant's call pays for the change (its bundles, its standing
  // requests): timed one call in three it would read slower than linear.
  World w(table(1.3, 1.2), 3);
  const Truth truth = [](Variant v, std::uint64_t) {
    return v == Variant::kAggregated ? 800.0 : v == Variant::kLinear ? 1000.0 : 1500.0;
  };
  w.change_cost = [](Variant v) { return v == Variant::kAggregated ? 600.0 : 0.0; };
  std::vector<Variant> order;
  for (std::uint64_t c = 0; c <= kTryCalls; ++c) order.push_back(w.call(every_rank({4096}), truth)[0]);
  EXPECT_EQ(w.agreements, 1);
  // Runs of kRunCalls calls, one variant each.
  for (std::uint64_t c = 0; c < kTryCalls; ++c) EXPECT_EQ(order[c], order[c / kRunCalls * kRunCalls]) << c;
  for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(4096)), static_cast<int>(Variant::kAggregated));
}

TEST(Tuner, FollowsTheProgramToItsNextSizeAndThenStopsAgreeing) {
  World w(table(1.3, 1.6), 3);
  const Truth truth = [](Variant v, std::uint64_t b) {
    // Below 8K aggregated wins, above linear.
    if (b < 8192) return v == Variant::kAggregated ? 100.0 : 300.0;
    return v == Variant::kLinear ? 100.0 : 300.0;
  };
  for (int c = 0; c < 40; ++c) w.call(every_rank({2048}), truth);
  EXPECT_EQ(w.ranks[0]->settled(tune_bucket(2048)), static_cast<int>(Variant::kAggregated));
  EXPECT_TRUE(w.ranks[0]->bundles());
  for (int c = 0; c < 120; ++c) w.call(every_rank({65536}), truth);
  EXPECT_EQ(w.ranks[0]->settled(tune_bucket(65536)), static_cast<int>(Variant::kLinear));
  // The program left 2048 behind: bundles stop, and a 2048 block met again
  // takes the model's best other variant until an agreement sees it in use.
  EXPECT_FALSE(w.ranks[0]->bundles());
  const std::vector<Variant> back = w.call(every_rank({65536, 2048}), truth);
  EXPECT_EQ(back[0], Variant::kLinear);
  EXPECT_NE(back[1], Variant::kAggregated);
  for (int c = 0; c < 300 && !w.ranks[0]->bundles(); ++c) w.call(every_rank({65536, 2048}), truth);
  EXPECT_TRUE(w.ranks[0]->bundles());
  EXPECT_EQ(w.call(every_rank({65536, 2048}), truth), (std::vector<Variant>{Variant::kLinear, Variant::kAggregated}));
  // A steady program: the agreements thin out and stop.
  for (int c = 0; c < 20000; ++c) w.call(every_rank({65536}), truth);
  EXPECT_EQ(w.ranks[0]->phase(), Tuner::Phase::kClosed);
  EXPECT_LE(w.agreements, 20);
  const int closed_at = w.agreements;
  for (int c = 0; c < 1000; ++c) w.call(every_rank({1 << 20}), truth);
  EXPECT_EQ(w.agreements, closed_at);
}

TEST(Tuner, BundlesStopAtTheFirstAgreementThatFindsTheirSizesOutOfUse) {
  // Phase A (2K) settles on aggregated; phase B (64K) on linear. An
  // agreement that still saw phase A's last calls, more than kInUseCalls
  // calls before it, turns the bundles off: phase B's calls after it run
  // without them, not only after the agreement after that.
  World w(table(1.3, 1.6), 3);
  const Truth truth = [](Variant v, std::uint64_t b) {
    if (b < 8192) return v == Variant::kAggregated ? 100.0 : 300.0;
    return v == Variant::kLinear ? 100.0 : 300.0;
  };
  int c = 0;
  for (; c < 40; ++c) w.call(every_rank({2048}), truth);
  ASSERT_EQ(w.ranks[0]->settled(tune_bucket(2048)), static_cast<int>(Variant::kAggregated));
  ASSERT_TRUE(w.ranks[0]->bundles());
  const std::uint64_t last_a = w.ranks[0]->calls() - 1;
  int far_agreements = 0;
  bool settled_b = false;
  for (int b = 0; b < 200; ++b) {
    const int before = w.agreements;
    w.call(every_rank({65536}), truth);
    if (w.agreements == before) continue;
    const std::uint64_t at = w.ranks[0]->calls() - 1;
    if (at - last_a > kInUseCalls) {
      // Every agreement this far from phase A turns its bundles off.
      ++far_agreements;
      for (auto& t : w.ranks) EXPECT_FALSE(t->bundles()) << "agreement at call " << at;
    }
    if (w.ranks[0]->settled(tune_bucket(65536)) == static_cast<int>(Variant::kLinear)) {
      settled_b = true;
      break;
    }
  }
  EXPECT_TRUE(settled_b);
  EXPECT_GE(far_agreements, 2);  // the one that found 64K unsettled, and the one that settled it
  EXPECT_FALSE(w.ranks[0]->bundles());
  // A program alternating the two sizes call by call keeps its bundles.
  for (int a = 0; a < 200; ++a) w.call(every_rank({a % 2 == 0 ? 2048U : 65536U}), truth);
  EXPECT_TRUE(w.ranks[0]->bundles());
  EXPECT_EQ(w.call(every_rank({2048}), truth)[0], Variant::kAggregated);
}

TEST(Tuner, ASizeSettledInOnePhaseIsTriedAgainBesideTheNextPhasesSizes) {
  // Phase A's sizes, 1K and 4K, run fastest aggregated. Phase B's calls
  // carry 4K and 16K blocks: 16K alone would take linear, 4K alone
  // aggregated, and a call that mixes variants pays for both. Timed as
  // whole calls, phase B runs fastest all linear.
  World w(table(1.3, 1.6), 3);
  w.mixed_cost = 1000.0;
  const Truth truth = [](Variant v, std::uint64_t b) {
    if (v == Variant::kLeader) return 400.0;
    if (b >= 16384) return v == Variant::kLinear ? 100.0 : 300.0;
    if (b >= 4096) return v == Variant::kLinear ? 150.0 : 100.0;
    return v == Variant::kLinear ? 300.0 : 100.0;
  };
  for (int c = 0; c < 60; ++c) w.call(every_rank({1024, 4096}), truth);
  EXPECT_EQ(w.ranks[0]->settled(tune_bucket(4096)), static_cast<int>(Variant::kAggregated));
  // Phase B's trials run each variant as a whole call: the 4K blocks take
  // the turn's variant too, and linear's turn runs no bundles.
  bool linear_trial_seen = false;
  for (int c = 0; c < 200; ++c) {
    const std::vector<Variant> v = w.call(every_rank({4096, 16384}), truth);
    if (w.ranks[0]->phase() == Tuner::Phase::kTrying && w.ranks[0]->trial() && v[1] == Variant::kLinear) {
      linear_trial_seen = true;
      EXPECT_EQ(v[0], Variant::kLinear) << c;
      EXPECT_FALSE(w.ranks[0]->bundles()) << c;
    }
  }
  EXPECT_TRUE(linear_trial_seen);
  for (auto& t : w.ranks) {
    EXPECT_EQ(t->settled(tune_bucket(16384)), static_cast<int>(Variant::kLinear));
    EXPECT_EQ(t->settled(tune_bucket(4096)), static_cast<int>(Variant::kLinear));
  }
  EXPECT_EQ(w.call(every_rank({4096, 16384}), truth), (std::vector<Variant>{Variant::kLinear, Variant::kLinear}));
  EXPECT_FALSE(w.ranks[0]->bundles());
  // Phase A's 1K, not met in phase B, keeps its setting.
  EXPECT_EQ(w.ranks[0]->settled(tune_bucket(1024)), static_cast<int>(Variant::kAggregated));
}

TEST(Tuner, AnAggregatedSizeMixedWithUntriedSizesIsTriedAgainOnce) {
  // The model is unsure at 1K (linear and aggregated close) and sure at 8K
  // (linear). Phase A's 1K calls run fastest aggregated; phase B's calls
  // carry 1K and 8K blocks, where a call that mixes variants pays for
  // both: all linear is fastest there.
  const CostTable m = table(5.0, [](std::uint64_t b) { return b <= 2048 ? 1.2 : 5.0; });
  World w(m, 3);
  ASSERT_EQ(std::popcount(tune_candidates(m, tune_bucket(1024), kDefaultTuneFactor)), 2);
  ASSERT_EQ(tune_candidates(m, tune_bucket(8192), kDefaultTuneFactor), 1U);
  w.mixed_cost = 1000.0;
  const Truth truth = [](Variant v, std::uint64_t b) {
    if (v == Variant::kLeader) return 400.0;
    if (b >= 8192) return v == Variant::kLinear ? 100.0 : 300.0;
    return v == Variant::kLinear ? 300.0 : 100.0;
  };
  for (int c = 0; c < 60; ++c) w.call(every_rank({1024}), truth);
  EXPECT_EQ(w.ranks[0]->settled(tune_bucket(1024)), static_cast<int>(Variant::kAggregated));
  for (int c = 0; c < 300; ++c) w.call(every_rank({1024, 8192}), truth);
  for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(1024)), static_cast<int>(Variant::kLinear));
  EXPECT_EQ(w.call(every_rank({1024, 8192}), truth), (std::vector<Variant>{Variant::kLinear, Variant::kLinear}));
  EXPECT_FALSE(w.ranks[0]->bundles());
  // Once only: a program alternating phase A's and phase B's calls does
  // not keep it trying; the agreements still thin out and stop.
  for (int c = 0; c < 20000; ++c)
    w.call(every_rank(c % 2 == 0 ? std::vector<std::uint64_t>{1024} : std::vector<std::uint64_t>{1024, 8192}), truth);
  EXPECT_EQ(w.ranks[0]->phase(), Tuner::Phase::kClosed);
}

TEST(Tuner, AProgramCyclingThreeCallsStillTriesEveryVariant) {
  World w(table(1.1, 1.2), 2);
  const Truth truth = [](Variant v, std::uint64_t) { return v == Variant::kAggregated ? 10.0 : 50.0; };
  const std::vector<std::uint64_t> cycle = {1024, 16384, 262144};
  for (int c = 0; c < 200; ++c) w.call(every_rank({cycle[static_cast<std::size_t>(c % 3)]}), truth);
  for (const std::uint64_t b : cycle)
    EXPECT_EQ(w.ranks[0]->settled(tune_bucket(b)), static_cast<int>(Variant::kAggregated)) << b;
}

TEST(Tuner, RanksThatMeetABucketUnevenlyStillSettleAlike) {
  // Rank 1 has the 4K block only on every other call: its reports lag, and
  // after kMaxTries agreements the bucket settles on what was reported.
  World w(table(1.2, 1.4), 3);
  const Truth truth = [](Variant v, std::uint64_t) { return v == Variant::kLeader ? 10.0 : 50.0; };
  int call = 0;
  const auto sizes = [&call](int r) {
    return r == 1 && call % 2 == 1 ? std::vector<std::uint64_t>{} : std::vector<std::uint64_t>{4096};
  };
  for (; call < 200; ++call) w.call(sizes, truth);
  for (auto& t : w.ranks) EXPECT_EQ(t->settled(tune_bucket(4096)), static_cast<int>(Variant::kLeader));
}

TEST(Tuner, EpochChangesAtEveryAgreementOnly) {
  World w(table(1.3, 1.6), 2);
  const Truth truth = [](Variant, std::uint64_t) { return 1.0; };
  std::uint64_t epoch = w.ranks[0]->epoch();
  for (int c = 0; c < 100; ++c) {
    const int before = w.agreements;
    w.call(every_rank({512}), truth);
    EXPECT_EQ(w.ranks[0]->epoch() != epoch, w.agreements != before);
    epoch = w.ranks[0]->epoch();
  }
}

TEST(Tuner, LinearEverywhereExactlyWhereEveryBucketTakesLinear) {
  // The model ranks linear first everywhere, leader and aggregated close.
  World w(table(1.3, 1.6), 3);
  const Truth linear_wins = [](Variant v, std::uint64_t) { return v == Variant::kLinear ? 500.0 : 1000.0; };
  // Trying: linear's runs only (World::call checks that every rank says
  // the same and that every block of such a call takes linear).
  for (std::uint64_t c = 0; c < kTryCalls; ++c) {
    const Variant v = w.call(every_rank({4096}), linear_wins)[0];
    EXPECT_EQ(w.ranks[0]->linear_everywhere(), v == Variant::kLinear) << c;
  }
  // Settled on linear, with the model's linear elsewhere: every size.
  for (int c = 0; c < 40; ++c) w.call(every_rank({4096}), linear_wins);
  EXPECT_EQ(w.ranks[0]->settled(tune_bucket(4096)), static_cast<int>(Variant::kLinear));
  EXPECT_TRUE(w.ranks[0]->linear_everywhere());
  // A size settled on leader: not everywhere.
  World l(table(1.3, 1.6), 3);
  const Truth leader_wins = [](Variant v, std::uint64_t) { return v == Variant::kLeader ? 500.0 : 1000.0; };
  for (int c = 0; c < 60; ++c) l.call(every_rank({4096}), leader_wins);
  EXPECT_EQ(l.ranks[0]->settled(tune_bucket(4096)), static_cast<int>(Variant::kLeader));
  EXPECT_FALSE(l.ranks[0]->linear_everywhere());
  // A model whose choice is leader, clearly: never.
  World m(table(0.2, 3.0), 2);
  for (int c = 0; c < 60; ++c) {
    m.call(every_rank({4096}), linear_wins);
    EXPECT_FALSE(m.ranks[0]->linear_everywhere());
  }
}

}  // namespace
}  // namespace nbrcoll::algos
