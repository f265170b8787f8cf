#include "algos/tuner.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace nbrcoll::algos {

namespace {

constexpr int kTopOctave = 40;  // sizes from 2^40 share the last bucket
// A bucket's terms in an agreement's payload: whether it was met unsettled
// (kSeen), the last call that met it, plus one (kMet; 0: none), whether
// it was met settled on aggregated in a call that ran other variants too
// (kMixed), then per variant whether short of timings and its median
// (kTimes + 2 v and + 1).
constexpr std::size_t kSeen = 0;
constexpr std::size_t kMet = 1;
constexpr std::size_t kMixed = 2;
constexpr std::size_t kTimes = 3;
constexpr std::size_t kStride = kTimes + (2 * std::size_t{kVariantCount});
static_assert(kStride * kTuneBuckets == Tuner::payload_size());
constexpr std::int16_t kComputed = 0x100;

// The least size of the upper half of octave e: ceil(2^e * sqrt 2).
std::uint64_t half_octave(int e) {
  return static_cast<std::uint64_t>(std::ceil(std::ldexp(std::sqrt(2.0), e)));
}

unsigned bit(Variant v) {
  return 1U << static_cast<unsigned>(v);
}

std::uint64_t median(const std::array<std::uint64_t, kSamples>& ns) {
  std::array<std::uint64_t, kSamples> s = ns;
  std::sort(s.begin(), s.end());
  return s[kSamples / 2];
}

}  // namespace

int tune_bucket(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  const int e = static_cast<int>(std::bit_width(bytes)) - 1;
  if (e >= kTopOctave) return kTuneBuckets - 1;
  return 1 + 2 * e + (bytes >= half_octave(e) ? 1 : 0);
}

std::uint64_t bucket_low(int k) {
  if (k <= 0) return 0;
  if (k >= kTuneBuckets - 1) return std::uint64_t{1} << kTopOctave;
  const int e = (k - 1) / 2;
  return (k - 1) % 2 == 0 ? std::uint64_t{1} << e : half_octave(e);
}

std::uint64_t bucket_high(int k) {
  if (k >= kTuneBuckets - 1) return std::uint64_t{1} << (kTopOctave + 1);
  return bucket_low(k + 1) - 1;
}

unsigned tune_candidates(const CostTable& model, int k, double factor) {
  unsigned mask = 0;
  for (const std::uint64_t size : {bucket_low(k), bucket_high(k)}) {
    std::uint64_t least = ~std::uint64_t{0};
    for (const Variant v : model.variants) least = std::min(least, model.at(v, size));
    for (const Variant v : model.variants) {
      if (static_cast<double>(model.at(v, size)) <= factor * static_cast<double>(least)) mask |= bit(v);
    }
  }
  return mask;
}

Tuner::Tuner(const CostTable& model, const CostTable& offered, double factor, AgreementDeferral deferral,
             std::uint64_t forward_from, unsigned cold)
    : model_(model),
      offered_(offered),
      without_aggregated_(offered),
      factor_(factor),
      deferral_(deferral),
      forward_from_(forward_from),
      cold_(cold & ((1U << kVariantCount) - 1)) {
  without_aggregated_.drop(Variant::kAggregated);
  model_aggregated_ =
      std::find(model.variants.begin(), model.variants.end(), Variant::kAggregated) != model.variants.end();
  // Until an agreement says which sizes the program uses, bundles travel
  // where the model offers aggregated at all (as without tuning).
  needs_bundles_ =
      std::find(offered.variants.begin(), offered.variants.end(), Variant::kAggregated) != offered.variants.end();
  untried_bundles_ = needs_bundles_;
  settled_.fill(static_cast<std::int8_t>(kUnsettled));
  model_linear_.fill(-1);
  for (auto& row : last_times_) row.fill(-1);
  // Nothing any size could try, and no bundles an agreement could turn
  // off: agreements could change nothing, so there are none.
  bool uncertain = false;
  for (int k = 0; k < kTuneBuckets && !uncertain; ++k) uncertain = std::popcount(candidates(k)) >= 2;
  if (!uncertain && !needs_bundles_) phase_ = Phase::kClosed;
}

unsigned Tuner::candidates(int k) const {
  std::int16_t& c = candidates_[static_cast<std::size_t>(k)];
  if ((c & kComputed) == 0) {
    c = static_cast<std::int16_t>(
        kComputed | (tune_candidates(model_, k, factor_) | (below_forwarding(k) ? bit(Variant::kLinear) : 0U)));
  }
  return static_cast<unsigned>(c) & 0xFFU;
}

bool Tuner::call_mixed(std::size_t k) const {
  return call_settled_aggregated_ && std::popcount(call_variants_) >= 2 && call_aggregated_[k] && !reopened_[k];
}

void Tuner::begin_call() {
  // The call before: where its blocks ran more than one variant, its
  // settled aggregated sizes were mixed (see settle()).
  if (call_settled_aggregated_) {
    for (std::size_t k = 0; k < kTuneBuckets; ++k) mixed_[k] = mixed_[k] || call_mixed(k);
    call_aggregated_.fill(false);
  }
  call_settled_aggregated_ = false;
  call_variants_ = 0;
  current_ = calls_++;
  trial_pairs_.clear();
}

Variant Tuner::choose(std::uint64_t bytes) {
  const int k = tune_bucket(bytes);
  const Variant v = choose_in(k, bytes);
  // Mixing is noted outside trials only: a trial of one variant mixes by
  // design where sizes it is not for take another.
  if (phase_ != Phase::kTrying) {
    call_variants_ |= bit(v);
    if (v == Variant::kAggregated && settled_[static_cast<std::size_t>(k)] == static_cast<int>(v)) {
      call_aggregated_[static_cast<std::size_t>(k)] = true;
      call_settled_aggregated_ = true;
    }
  }
  return v;
}

Variant Tuner::choose_in(int k, std::uint64_t bytes) {
  const auto uk = static_cast<std::size_t>(k);
  last_met_[uk] = current_ + 1;
  const int s = settled(k);
  // An unsettled bucket is noted and tried; one settled before is tried
  // again while trying, beside the sizes being tried: a call runs all its
  // blocks' variants together, so a size settled among other calls' sizes
  // would mix its variant into these trials (and into the calls after them).
  if ((s == kUnsettled && phase_ != Phase::kClosed) || (s >= 0 && phase_ == Phase::kTrying)) {
    if (const unsigned c = candidates(k); std::popcount(c) >= 2) {
      if (s == kUnsettled) seen_[uk] = true;
      const Variant turn_v = turn();
      if (phase_ == Phase::kTrying && (c & bit(turn_v)) != 0) {
        const std::pair<int, Variant> pair{k, turn_v};
        if (std::find(trial_pairs_.begin(), trial_pairs_.end(), pair) == trial_pairs_.end())
          trial_pairs_.push_back(pair);
        return turn_v;  // aggregated only on its turn, when bundles travel
      }
    }
  }
  // Where every size takes linear the model's table is not read: its
  // interpolation cost a call of many blocks more than the rest of its choice.
  if (linear_everywhere()) return Variant::kLinear;
  // Unsettled below the floor: linear (forwarding there only where timed faster).
  Variant v = settled_[uk] >= 0     ? static_cast<Variant>(settled_[uk])
              : below_forwarding(k) ? Variant::kLinear
                                    : offered_.cheapest(bytes);
  // Aggregated only in calls whose bundles travel; else the model's best
  // of the others (a size the last agreement did not see in use).
  if (v == Variant::kAggregated && !bundles()) v = without_aggregated_.cheapest(bytes);
  return v;
}

bool Tuner::linear_everywhere() const {
  // The run index changes the turn while trying; the agreements change the
  // rest (phase, settled buckets, bundles).
  const std::uint64_t key = (agreements_ << 32) ^ (phase_ == Phase::kTrying ? current_ / kRunCalls : 0);
  if (key != linear_key_) {
    linear_key_ = key;
    linear_everywhere_ = every_bucket_linear();
  }
  return linear_everywhere_;
}

bool Tuner::every_bucket_linear() const {
  if (bundles()) return false;
  // A trying call whose turn is not linear may give some block another
  // variant: not linear everywhere (false is always safe: it only packs).
  const bool trying = phase_ == Phase::kTrying;
  if (trying && turn() != Variant::kLinear) return false;
  for (int k = 0; k < kTuneBuckets; ++k) {
    const int s = settled(k);
    if (s >= 0) {
      if (s != static_cast<int>(Variant::kLinear)) return false;
      continue;
    }
    // choose()'s branches without a call's notes: the model's choice (no
    // bundles: without aggregated) where it is linear at the bucket's
    // edges, else linear's trial run.
    if (model_linear(k)) continue;
    const unsigned c = candidates(k);
    if (!(trying && s == kUnsettled && std::popcount(c) >= 2 && (c & bit(Variant::kLinear)) != 0)) return false;
  }
  return true;
}

bool Tuner::model_linear(int k) const {
  std::int8_t& m = model_linear_[static_cast<std::size_t>(k)];
  if (m < 0) {
    m = below_forwarding(k) || (without_aggregated_.cheapest(bucket_low(k)) == Variant::kLinear &&
                                without_aggregated_.cheapest(bucket_high(k)) == Variant::kLinear)
            ? 1
            : 0;
  }
  return m == 1;
}

bool Tuner::bundles() const {
  // While trying, only aggregated's turn needs them for the sizes on trial
  // (settled ones included): another turn runs bundles only for sizes the
  // model gives aggregated without trials, so that its trial times carry no
  // bundles that its variant would not run.
  if (phase_ == Phase::kTrying) {
    return turn() == Variant::kAggregated ? model_aggregated_ || needs_bundles_ : untried_bundles_;
  }
  return needs_bundles_;
}

bool Tuner::takes_aggregated(int k) const {
  const int s = settled(k);
  if (s >= 0) return s == static_cast<int>(Variant::kAggregated);
  return model_takes_aggregated(k);
}

bool Tuner::model_takes_aggregated(int k) const {
  if (below_forwarding(k)) return false;
  return offered_.cheapest(bucket_low(k)) == Variant::kAggregated ||
         offered_.cheapest(bucket_high(k)) == Variant::kAggregated;
}

void Tuner::end_call(std::uint64_t ns) {
  add_sample(trial_pairs_, ns);
}

void Tuner::record(const Trial& trial, std::uint64_t ns) {
  if (trial.epoch == agreements_) add_sample(trial.pairs, ns);
}

void Tuner::add_sample(const std::vector<std::pair<int, Variant>>& pairs, std::uint64_t ns) {
  // A cold variant's first kRunCalls trial calls are counted, not timed.
  unsigned cold_now = 0;
  for (const auto& pair : pairs) cold_now |= cold_ & bit(pair.second);
  for (const auto& [k, v] : pairs) {
    Pair& p = pairs_[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)];
    if (!p.warmed) {
      p.warmed = true;
    } else if (p.count < kSamples && (cold_now & bit(v)) == 0) {
      p.ns[p.count++] = ns;
    }
  }
  for (std::size_t v = 0; v < kVariantCount; ++v) {
    if ((cold_now & (1U << v)) != 0 && ++cold_calls_[v] >= kRunCalls) cold_ &= ~(1U << v);
  }
}

unsigned Tuner::warm() const {
  return ~cold_ & ((1U << kVariantCount) - 1);
}

bool Tuner::unsettled_seen() const {
  return std::any_of(seen_.begin(), seen_.end(), [](bool s) { return s; });
}

bool Tuner::mixed_seen() const {
  for (std::size_t k = 0; k < kTuneBuckets; ++k) {
    if (mixed_[k] || call_mixed(k)) return true;  // call_mixed: the last call, not yet noted
  }
  return false;
}

std::vector<std::int64_t> Tuner::payload() const {
  std::vector<std::int64_t> out(payload_size(), 0);
  for (std::size_t k = 0; k < kTuneBuckets; ++k) {
    std::int64_t* t = &out[k * kStride];
    t[kSeen] = seen_[k] ? 1 : 0;
    t[kMet] = static_cast<std::int64_t>(last_met_[k]);
    t[kMixed] = mixed_[k] ? 1 : 0;
    const std::array<Pair, kVariantCount>& pairs = pairs_[k];
    const bool met = std::any_of(pairs.begin(), pairs.end(), [](const Pair& p) { return p.warmed; });
    if (!met) continue;
    const unsigned c = candidates(static_cast<int>(k));
    for (std::size_t v = 0; v < kVariantCount; ++v) {
      if ((c & (1U << v)) == 0) continue;
      const Pair& p = pairs[v];
      if (p.count < kSamples) {
        t[kTimes + 2 * v] = 1;  // short of timings
      } else {
        t[kTimes + 2 * v + 1] = static_cast<std::int64_t>(median(p.ns));
      }
    }
  }
  return out;
}

// Bucket k from the terms' maxima over ranks: settled where no rank that
// met it is short of timings of a candidate, or (complete_only false)
// wherever some candidate was timed; on the least slowest-rank median.
// Returns whether it settled.
bool Tuner::settle_bucket(int k, const std::int64_t* terms, bool complete_only) {
  const auto uk = static_cast<std::size_t>(k);
  const unsigned c = candidates(k);
  bool complete = true;
  int best = kModel;
  std::int64_t best_ns = 0;
  for (std::size_t v = 0; v < kVariantCount; ++v) {
    if ((c & (1U << v)) == 0) continue;
    const std::int64_t ns = terms[kTimes + 2 * v + 1];
    if (terms[kTimes + 2 * v] != 0 || ns == 0) complete = false;
    if (ns == 0) continue;
    if (best == kModel || ns < best_ns) {  // ties: the earlier variant
      best = static_cast<int>(v);
      best_ns = ns;
    }
  }
  if (complete_only && !complete) return false;
  settled_[uk] = static_cast<std::int8_t>(best);
  for (std::size_t v = 0; v < kVariantCount; ++v) {
    const std::int64_t ns = terms[kTimes + 2 * v + 1];
    last_times_[uk][v] = ns > 0 ? ns : -1;
  }
  pairs_[uk] = {};
  return true;
}

std::vector<int> Tuner::settle(const std::vector<std::int64_t>& most) {
  std::vector<int> settled_now;
  bool pending = false;
  for (int k = 0; k < kTuneBuckets; ++k) {
    const auto uk = static_cast<std::size_t>(k);
    const std::int64_t* t = &most[uk * kStride];
    // Settled on aggregated, and run beside other variants in some rank's
    // calls since: aggregated's rounds and the others' messages both set
    // the pace of such a call. Tried again, once, beside those sizes, where
    // the model gave them their variant without trials (a phase's trials
    // run it as a whole call: choose()).
    if (settled_[uk] == static_cast<int>(Variant::kAggregated) && t[kMixed] != 0 && !reopened_[uk]) {
      reopened_[uk] = true;
      settled_[uk] = static_cast<std::int8_t>(kUnsettled);
      tries_[uk] = 0;
      pairs_[uk] = {};
      pending = true;
      continue;
    }
    // Settled before and tried again beside this phase's sizes: settles
    // again where every rank's timings are complete.
    if (settled_[uk] >= 0) {
      if (settle_bucket(k, t, true)) settled_now.push_back(k);
      continue;
    }
    if (settled_[uk] != kUnsettled || t[kSeen] == 0) continue;
    // Met by some rank since the last agreement: settle it if the data are
    // complete, or after kMaxTries trying agreements on what there is.
    if (phase_ == Phase::kTrying) ++tries_[uk];
    settle_bucket(k, t, tries_[uk] < kMaxTries);
    if (settled_[uk] != kUnsettled) {
      settled_now.push_back(k);
    } else {
      pending = true;
    }
  }
  // Bundles travel from now on where a size some rank used in the last
  // kInUseCalls calls before the agreement takes aggregated: a program that
  // has moved on from such sizes stops paying for them at the agreement
  // after it moved, not one later (the payload's call: every rank's alike).
  // (untried_bundles_: of them, the sizes no trial is for.)
  const std::uint64_t payload_call = next_agreement_ + deferral_.start;
  const std::uint64_t in_use_from = payload_call > kInUseCalls ? payload_call - kInUseCalls : 0;
  needs_bundles_ = false;
  untried_bundles_ = false;
  for (int k = 0; k < kTuneBuckets; ++k) {
    const std::int64_t last = most[static_cast<std::size_t>(k) * kStride + kMet];
    if (last == 0 || static_cast<std::uint64_t>(last - 1) < in_use_from) continue;
    if (takes_aggregated(k)) needs_bundles_ = true;
    if (std::popcount(candidates(k)) < 2 && model_takes_aggregated(k)) untried_bundles_ = true;
  }
  seen_.fill(false);
  last_met_.fill(0);
  mixed_.fill(false);
  ++agreements_;
  if (pending) {
    phase_ = Phase::kTrying;
    watches_ = 0;
  } else {
    // Watching starts over after a phase that tried: the program's next
    // size may follow soon.
    if (phase_ == Phase::kTrying || !settled_now.empty()) watches_ = 0;
    phase_ = Phase::kWatching;
    ++watches_;
  }
  // Timings of settled sizes that did not settle again are of this
  // phase's calls only: the next phase tries them afresh.
  if (phase_ != Phase::kTrying) {
    for (std::size_t k = 0; k < kTuneBuckets; ++k) {
      if (settled_[k] >= 0) pairs_[k] = {};
    }
  }
  next_agreement_ = current_ + (phase_ == Phase::kTrying ? kTryCalls : kTryCalls << (watches_ - 1));
  if (watches_ > kMaxWatches || agreements_ >= static_cast<std::uint64_t>(kMaxAgreements)) phase_ = Phase::kClosed;
  return settled_now;
}

std::array<std::int64_t, kVariantCount> Tuner::last_times(int k) const {
  return last_times_[static_cast<std::size_t>(k)];
}

}  // namespace nbrcoll::algos
