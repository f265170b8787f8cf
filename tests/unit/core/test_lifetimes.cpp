// The lifetime vote's history (src/state/lifetimes.h): the graphs count as
// short-lived by the median of the last graphs' blocking calls so far (live
// or freed), never before enough were made, never with the setting at 0.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "state/lifetimes.h"

namespace nbrcoll {
namespace {

std::shared_ptr<CallCounter> counter(std::uint64_t calls) {
  return std::make_shared<CallCounter>(calls);
}

TEST(LifetimeHistory, NeedsEnoughGraphs) {
  LifetimeHistory h;
  for (int i = 0; i < LifetimeHistory::kNeeded - 1; ++i) {
    h.add(counter(0));
    EXPECT_FALSE(h.looks_short(2)) << i;
  }
  h.add(counter(0));
  EXPECT_TRUE(h.looks_short(2));
}

TEST(LifetimeHistory, TheMedianDecides) {
  LifetimeHistory h;
  for (const std::uint64_t calls : {2, 2, 100}) h.add(counter(calls));
  EXPECT_TRUE(h.looks_short(2));   // one long-lived graph among short ones
  EXPECT_FALSE(h.looks_short(1));  // the median, 2, is above 1
  h.add(counter(100));
  h.add(counter(3));
  EXPECT_FALSE(h.looks_short(2));  // 2, 2, 3, 100, 100: median 3
  EXPECT_TRUE(h.looks_short(3));
}

TEST(LifetimeHistory, ReadsTheCountsAsTheyAreNow) {
  LifetimeHistory h;
  std::vector<std::shared_ptr<CallCounter>> live;
  for (int i = 0; i < LifetimeHistory::kKept; ++i) {
    live.push_back(counter(0));
    h.add(live.back());
  }
  EXPECT_TRUE(h.looks_short(2));
  // Graphs still alive keep counting: three called often make the median long.
  for (int i = 0; i < 3; ++i) *live[static_cast<std::size_t>(i)] += 10;
  EXPECT_FALSE(h.looks_short(2));
  // A counter outlives the graph it counted (freed: no more calls).
  live.clear();
  EXPECT_FALSE(h.looks_short(2));
}

TEST(LifetimeHistory, RemembersOnlyTheLastGraphs) {
  LifetimeHistory h;
  for (int i = 0; i < LifetimeHistory::kKept; ++i) h.add(counter(1000));
  EXPECT_FALSE(h.looks_short(2));
  // As many short-lived graphs again push every long-lived one out.
  for (int i = 0; i < LifetimeHistory::kKept; ++i) {
    h.add(counter(0));
    EXPECT_EQ(h.looks_short(2), i >= LifetimeHistory::kKept / 2) << i;
  }
}

TEST(LifetimeHistory, ZeroNeverVotesShort) {
  LifetimeHistory h;
  for (int i = 0; i < 2 * LifetimeHistory::kKept; ++i) h.add(counter(0));
  EXPECT_FALSE(h.looks_short(0));
  EXPECT_TRUE(h.looks_short(1));
}

}  // namespace
}  // namespace nbrcoll
