// Measured choice for `auto`: a call that repeats runs the variants the
// cost model ranks close on its first calls, every rank times them, one
// small agreement picks the fastest per block size, and later calls keep
// it. Pure: no MPI and no clock; the library feeds it each call's time and
// does the agreement's reduction (src/call/tuning.h). docs/DESIGN.md,
// "Measured choice", says why it works this way.
//
// Every rank must reach the same variant for every block on both of its
// ends without talking. So everything here is a function of what both ends
// of a block know alike: the block's size, the cost table (the same on
// every rank), the count of the tuner's calls (each rank makes the same
// calls on a handle, in order) and what the agreements returned (the same
// integers everywhere). What a rank measured enters only through an
// agreement.
//
// Sizes are taken in buckets of half an octave. A bucket is uncertain where
// two or more variants are predicted within `factor` of the fastest at
// either of its edges; only uncertain buckets are tried. The tuner runs in
// phases:
//  - trying (the first phase): the calls go in runs of kRunCalls, and
//    run r = n / kRunCalls takes kAllVariants[(r + r / 3) % 3] (each
//    variant one run in every three, in an order that turns, so that a
//    program repeating a short cycle of calls still meets each) for every
//    block of an uncertain, unsettled bucket where that variant is a
//    candidate (the model's choice where it is not), and the call's time
//    counts for each such (bucket, variant); each rank skips the first call
//    of a pair (a first call pays for buffers and schedules), and a variant
//    the process has not yet run (`cold`) is not timed in its first run
//    here (kRunCalls trial calls: a process's first calls of a plan pay
//    for connections and more, docs/DESIGN.md, "Measured choice"). Runs, not a
//    variant a call: a call that follows another variant's call pays for
//    the change (no standing requests, bundles that travel on every third
//    call only), which a program repeating its call never pays
//    (docs/DESIGN.md, "Measured choice", has the measurements). An agreement
//    every kTryCalls calls takes, per pair, the maximum over ranks of each
//    rank's median of kSamples times (the slowest rank sets the pace of a
//    halo loop); a bucket that no rank meeting it is short of timings for
//    settles on the least; one still short after kMaxTries agreements
//    settles on the least of what was reported (or on the model's choice
//    where nothing was). A bucket settled before and met while trying takes
//    the turn's variant too and is timed again: a call runs all its blocks'
//    variants together, so a size settled among another phase's sizes
//    would otherwise mix its variant into these trials (a "linear" run
//    with aggregated blocks and bundles in it) and into the calls after
//    them. It settles again where no rank is short of its timings.
//  - watching: once an agreement finds nothing left to try, calls take the
//    settled variant or the model's choice, and a rank notes uncertain
//    buckets that have not settled (a program's next phase: another size).
//    Agreements come after kTryCalls, then twice as many calls, and so on;
//    one that finds a noted bucket goes back to trying. So does one that
//    finds a bucket settled on aggregated met in a call whose other blocks
//    took other variants (sizes the model chose without trials): such a
//    call pays aggregated's rounds and the others' messages both. The
//    bucket is tried again beside them, once in the tuner's life, so that
//    a program alternating such calls cannot keep it trying.
//  - closed: after kMaxWatches watching agreements in a row, or
//    kMaxAgreements in all, no more agreements; unsettled buckets keep the
//    model's choice. A tuner is closed from the start where no bucket is
//    uncertain and the offered table has no aggregated row (no bundles for
//    an agreement to turn off): no agreement could change anything.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "algos/cost_model.h"
#include "algos/variant.h"

namespace nbrcoll::algos {

// Buckets of half an octave: 0 holds size 0, bucket k >= 1 the sizes in
// [2^((k-1)/2), 2^(k/2)) rounded; sizes from 2^40 bytes share the last.
inline constexpr int kTuneBuckets = 82;
int tune_bucket(std::uint64_t bytes);
// The least and the greatest size of bucket `k`.
std::uint64_t bucket_low(int k);
std::uint64_t bucket_high(int k);

// Candidates of bucket `k`: bit v set for each variant of `model` (the cost
// model's predictions, every planned variant) whose time at the bucket's
// least or greatest size is within `factor` of the least there.
unsigned tune_candidates(const CostTable& model, int k, double factor);

inline constexpr std::uint64_t kRunCalls = 6;  // consecutive trying calls of one variant
// Calls between agreements while trying: one run of each variant (18).
inline constexpr std::uint64_t kTryCalls = kRunCalls * static_cast<std::uint64_t>(kVariantCount);
inline constexpr int kSamples = 5;                 // timed calls per (bucket, variant) and rank before it reports
inline constexpr int kMaxWatches = 8;              // watching agreements in a row before closing
inline constexpr int kMaxAgreements = 40;          // agreements in all
inline constexpr int kMaxTries = 4;                // agreements a bucket may wait for complete data
inline constexpr double kDefaultTuneFactor = 2.0;  // NBRCOLL_TUNE's default
// A size counts as in use at an agreement (its bundles travel on) where
// some rank met it in this many calls before it.
inline constexpr std::uint64_t kInUseCalls = kTryCalls;

// A tuner's agreements reduced over several calls (Tuner::agreement_due());
// none: each settles at the call it is due at.
struct AgreementDeferral {
  std::uint64_t start = 0;
  std::uint64_t settle = 0;  // > start where any
};

class Tuner {
 public:
  enum class Phase : std::uint8_t { kTrying, kWatching, kClosed };
  // `model`: the predictions (candidates); `offered`: what auto chooses
  // from without tuning (the model's choice). Both outlive the tuner.
  // `forward_from` (a power of two: a bucket's edge): a block below it
  // forwards only where timed faster than linear, never by the model alone
  // (nonblocking calls whose forwarding moves only inside MPI calls: the
  // model cannot know whether the application computes between start and
  // completion, the timings can; algos::nonblocking_variant). There linear
  // is a candidate beside the model's, and the choice until a bucket
  // settles. `cold` (bit v for variant v): variants whose first kRunCalls
  // trial calls here are not timed (the process has not yet run them).
  Tuner(const CostTable& model, const CostTable& offered, double factor, AgreementDeferral deferral = {},
        std::uint64_t forward_from = 0, unsigned cold = 0);

  // ---- One call: begin_call(), then an agreement where agreement_due()
  // (payload(), its maximum over ranks, settle()), choose() per block, then
  // end_call() with the call's time where the call was a trial.
  // Whether this call must first agree (every rank alike): take payload()
  // and reduce it. A tuner made with an AgreementDeferral (for nonblocking calls,
  // whose start must not wait for peers) is due `start` calls late, so
  // that the calls still in flight there report their times first, and
  // settles `settle` calls after the agreement's nominal call, where
  // settle_due(); calls go on as before meanwhile.
  [[nodiscard]] bool agreement_due() const {
    return phase_ != Phase::kClosed && current_ == next_agreement_ + deferral_.start;
  }
  [[nodiscard]] bool settle_due() const {
    return deferral_.settle > 0 && phase_ != Phase::kClosed && current_ == next_agreement_ + deferral_.settle;
  }
  void begin_call();
  // What this rank contributes to the agreement: int64 terms whose maximum
  // over ranks is taken (MPI_MAX), payload_size() of them: per bucket,
  // whether it met it unsettled, the last call that met it, whether it met
  // it settled on aggregated in a call that ran other variants too, and
  // per candidate whether it is short of timings and its median.
  [[nodiscard]] std::vector<std::int64_t> payload() const;
  static constexpr std::size_t payload_size() { return std::size_t{kTuneBuckets} * (3 + 2 * kVariantCount); }
  // The maximum over ranks of every rank's payload(): settles what it can
  // and chooses the next phase. Returns the buckets it settled.
  std::vector<int> settle(const std::vector<std::int64_t>& most);
  // The variant of a block of `bytes` in this call. Notes trials.
  Variant choose(std::uint64_t bytes);
  // Whether this call runs bundles (aggregated blocks may travel): where a
  // size some rank used in the kInUseCalls calls before the last agreement
  // takes aggregated (before the first: where the offered table has
  // aggregated), or in a trying call whose turn is aggregated (on the
  // other turns only where a size used takes aggregated by the model,
  // untried, so that their trials carry no bundles their variant would not
  // run). The same on every rank. Bundles cost a call messages and a wait
  // on the node pair's owners even where no block of it takes aggregated,
  // so a program that has moved on from the sizes that did stops paying
  // for them; a block whose size would take aggregated in a call without
  // bundles takes the model's best other variant.
  [[nodiscard]] bool bundles() const;
  // Whether every block of this call takes linear whatever its size, with
  // no bundles: a function of the agreements and the turn alone (what every
  // rank knows alike), so every rank may run the call by a rule they share
  // (typed messages, src/call/decision.h). choose() then gives linear to
  // every size, also inside a bucket where the model's choice would change.
  [[nodiscard]] bool linear_everywhere() const;
  // Whether choose() gave some block a trial variant in this call.
  [[nodiscard]] bool trial() const { return !trial_pairs_.empty(); }
  // This call took `ns` (a trial call only).
  void end_call(std::uint64_t ns);
  // A trial call that ends after later calls began (a nonblocking one):
  // take_trial() at its start, record() with its time when it is done. A
  // time that comes after an agreement its call preceded is dropped (the
  // agreement reset what it was for).
  struct Trial {
    std::uint64_t epoch = 0;
    std::vector<std::pair<int, Variant>> pairs;
  };
  [[nodiscard]] Trial take_trial() { return Trial{agreements_, std::move(trial_pairs_)}; }
  void record(const Trial& trial, std::uint64_t ns);

  [[nodiscard]] Phase phase() const { return phase_; }
  // Changes at every agreement: a decision kept from an earlier call holds
  // only within one epoch.
  [[nodiscard]] std::uint64_t epoch() const { return agreements_; }
  [[nodiscard]] std::uint64_t calls() const { return calls_; }
  // The variants warm here (bit v): not cold when made, or run in
  // kRunCalls trial calls since (a later tuner of the process need not
  // warm them again).
  [[nodiscard]] unsigned warm() const;
  // The settled variant of bucket k; kUnsettled, or kModel (the model's
  // choice for good).
  static constexpr int kUnsettled = -1;
  static constexpr int kModel = -2;
  [[nodiscard]] int settled(int k) const { return settled_[static_cast<std::size_t>(k)]; }
  // Whether this rank's calls since the last agreement met an uncertain
  // bucket not settled (what the next agreement will be told).
  [[nodiscard]] bool unsettled_seen() const;
  // Whether they met a bucket settled on aggregated in a call that ran
  // other variants too, not yet tried again for that (the next agreement
  // will try it again).
  [[nodiscard]] bool mixed_seen() const;
  // What the agreement that settled bucket k found: per variant, the
  // slowest rank's median time (ns; -1: not reported), for the log.
  [[nodiscard]] std::array<std::int64_t, kVariantCount> last_times(int k) const;

 private:
  struct Pair {
    std::array<std::uint64_t, kSamples> ns{};
    std::uint8_t count = 0;  // samples kept
    bool warmed = false;     // the first call was seen (and skipped)
  };
  [[nodiscard]] unsigned candidates(int k) const;
  void add_sample(const std::vector<std::pair<int, Variant>>& pairs, std::uint64_t ns);
  // choose() without its notes of the call's mixing.
  Variant choose_in(int k, std::uint64_t bytes);
  // Whether this call so far ran bucket k's settled aggregated blocks
  // beside other variants, k not yet reopened.
  [[nodiscard]] bool call_mixed(std::size_t k) const;
  [[nodiscard]] bool takes_aggregated(int k) const;
  [[nodiscard]] Variant turn() const {
    const std::uint64_t run = current_ / kRunCalls;
    return kAllVariants[(run + run / kVariantCount) % kVariantCount];
  }
  bool settle_bucket(int k, const std::int64_t* terms, bool complete_only);
  // Whether the model's choice (without trials) at bucket k's least or
  // greatest size is aggregated.
  [[nodiscard]] bool model_takes_aggregated(int k) const;
  [[nodiscard]] bool every_bucket_linear() const;
  // Whether the model's choice without aggregated is linear at bucket k's
  // least and greatest sizes (cached).
  [[nodiscard]] bool model_linear(int k) const;

  const CostTable& model_;
  const CostTable& offered_;
  CostTable without_aggregated_;  // offered_ less its aggregated row
  double factor_;
  Phase phase_ = Phase::kTrying;
  std::uint64_t calls_ = 0;    // calls begun
  std::uint64_t current_ = 0;  // this call's index (calls_ - 1 once begun)
  std::uint64_t next_agreement_ = kTryCalls;
  AgreementDeferral deferral_;
  std::uint64_t forward_from_ = 0;
  unsigned cold_ = 0;                                     // variants still cold (bit v)
  std::array<std::uint8_t, kVariantCount> cold_calls_{};  // trial calls of each cold variant so far
  // Whether bucket k lies below forward_from_ (linear unless timed otherwise).
  [[nodiscard]] bool below_forwarding(int k) const { return bucket_high(k) < forward_from_; }
  std::uint64_t agreements_ = 0;
  int watches_ = 0;  // watching agreements in a row
  bool model_aggregated_ = false;
  bool needs_bundles_ = false;
  bool untried_bundles_ = false;                                 // of needs_bundles_'s sizes, one no trial is for
  mutable std::array<std::int16_t, kTuneBuckets> candidates_{};  // bit 8: computed
  std::array<std::int8_t, kTuneBuckets> settled_{};
  std::array<std::uint8_t, kTuneBuckets> tries_{};  // agreements that found bucket k met but not settled
  std::array<bool, kTuneBuckets> seen_{};           // uncertain and unsettled, met since the last agreement
  // The last call (+1) that met bucket k since the last agreement; 0: none.
  std::array<std::uint64_t, kTuneBuckets> last_met_{};
  // Settled on aggregated and met, since the last agreement, in a call
  // (not a trial) whose blocks ran more than one variant; and whether a
  // bucket was reopened for that before (once only).
  std::array<bool, kTuneBuckets> mixed_{};
  std::array<bool, kTuneBuckets> reopened_{};
  // This call so far: the variants its blocks took, and its settled
  // aggregated sizes (outside trials).
  unsigned call_variants_ = 0;
  bool call_settled_aggregated_ = false;
  std::array<bool, kTuneBuckets> call_aggregated_{};
  std::array<std::array<Pair, kVariantCount>, kTuneBuckets> pairs_{};
  std::array<std::array<std::int64_t, kVariantCount>, kTuneBuckets> last_times_{};
  std::vector<std::pair<int, Variant>> trial_pairs_;  // this call's
  // linear_everywhere() as found for the run and agreement count it holds
  // for (it changes only with those).
  mutable std::uint64_t linear_key_ = ~std::uint64_t{0};
  mutable bool linear_everywhere_ = false;
  mutable std::array<std::int8_t, kTuneBuckets> model_linear_{};  // -1 (the constructor's): not yet found
};

}  // namespace nbrcoll::algos
