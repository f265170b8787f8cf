// The dissemination rounds behind the late-planning agreement
// (src/state/channel_max.h): every rank ends with the maximum of all, for
// every rank count, and no rank hears from one peer in two rounds.
#include "algos/dissemination.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace nbrcoll::algos {
namespace {

TEST(Dissemination, RoundsAreCeilLog2) {
  EXPECT_EQ(dissemination_rounds(0), 0);
  EXPECT_EQ(dissemination_rounds(1), 0);
  EXPECT_EQ(dissemination_rounds(2), 1);
  EXPECT_EQ(dissemination_rounds(3), 2);
  EXPECT_EQ(dissemination_rounds(4), 2);
  EXPECT_EQ(dissemination_rounds(5), 3);
  EXPECT_EQ(dissemination_rounds(1024), 10);
  EXPECT_EQ(dissemination_rounds(1025), 11);
}

// Every rank's value after the rounds, each round's messages sent from the
// values held before it (as the ranks do).
std::vector<long long> run_max(const std::vector<long long>& start) {
  const int n = static_cast<int>(start.size());
  std::vector<long long> held = start;
  for (int k = 0; k < dissemination_rounds(n); ++k) {
    std::vector<long long> next = held;
    for (int r = 0; r < n; ++r) next[r] = std::max(held[r], held[dissemination_peers(n, r, k).from]);
    held = next;
  }
  return held;
}

TEST(Dissemination, EveryRankEndsWithTheMaximumOfAll) {
  std::mt19937 rng(7);
  for (int n = 1; n <= 130; ++n) {
    for (int where = 0; where < n; ++where) {  // the maximum at every rank in turn
      std::vector<long long> v(static_cast<std::size_t>(n));
      for (long long& x : v) x = static_cast<long long>(rng() % 1000);
      v[static_cast<std::size_t>(where)] = 5000;
      for (long long got : run_max(v)) ASSERT_EQ(got, 5000) << n << " ranks, maximum at " << where;
    }
  }
}

TEST(Dissemination, SendersAndReceiversPairUpAndDifferPerRound) {
  for (int n = 2; n <= 130; ++n) {
    for (int r = 0; r < n; ++r) {
      std::set<int> senders;
      for (int k = 0; k < dissemination_rounds(n); ++k) {
        const RoundPeers p = dissemination_peers(n, r, k);
        ASSERT_NE(p.from, r);
        ASSERT_EQ(dissemination_peers(n, p.from, k).to, r) << "round " << k << " of " << n;
        ASSERT_TRUE(senders.insert(p.from).second)
            << "rank " << r << " of " << n << " hears from " << p.from << " twice";
      }
    }
  }
}

}  // namespace
}  // namespace nbrcoll::algos
