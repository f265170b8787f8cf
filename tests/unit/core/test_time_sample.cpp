// The run report's time sample (src/report/run_counters.h, time_weight()):
// every call timed while a process's calls are few, then one in
// kSampleEvery at random, counted kSampleEvery times, so that the sum of
// weights tracks the number of calls and no period of calls aliases with
// the draw.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "report/run_counters.h"

namespace nbrcoll::report {
namespace {

TEST(TimeSample, EveryCallTimedWhileFew) {
  std::uint64_t timed = 0;
  std::uint64_t draw = 0;
  for (std::uint64_t i = 0; i < kExactCalls; ++i) EXPECT_EQ(detail::next_weight(timed, draw), 1U) << i;
  EXPECT_EQ(draw, 0U);  // the generator not yet stepped
}

TEST(TimeSample, WeightsSumToTheCallsAndNoPeriodAliases) {
  std::uint64_t timed = 0;
  std::uint64_t draw = 0;
  for (std::uint64_t i = 0; i < kExactCalls; ++i) detail::next_weight(timed, draw);
  constexpr std::uint64_t kCalls = 1U << 20;
  // Weight sums per residue of the call number for periods 2..16: an
  // application whose calls repeat with such a period (several exchanges a
  // step) gets each of its calls' time estimated, not one call's for all.
  std::vector<std::vector<std::uint64_t>> by_residue(17);
  for (unsigned p = 2; p <= 16; ++p) by_residue[p].assign(p, 0);
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < kCalls; ++i) {
    const unsigned w = detail::next_weight(timed, draw);
    ASSERT_TRUE(w == 0 || w == kSampleEvery) << w;
    total += w;
    for (unsigned p = 2; p <= 16; ++p) by_residue[p][i % p] += w;
  }
  EXPECT_NEAR(static_cast<double>(total) / kCalls, 1.0, 0.01);
  for (unsigned p = 2; p <= 16; ++p) {
    for (unsigned r = 0; r < p; ++r) {
      const double calls = static_cast<double>(kCalls) / p;
      EXPECT_NEAR(static_cast<double>(by_residue[p][r]) / calls, 1.0, 0.05) << "period " << p << ", residue " << r;
    }
  }
}

}  // namespace
}  // namespace nbrcoll::report
