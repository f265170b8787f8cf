// When the host fast path keeps a side's messages as persistent requests
// (src/transport/standing_messages.h): on the third run in a row with one
// key, never for a graph called twice, and anew after any other key; a
// key declined (sends too small to keep) posts until the key changes.
#include <gtest/gtest.h>

#include "transport/standing_messages.h"

namespace nbrcoll {
namespace {

using Use = StandingMessages::Use;

StandingKey key(int generation) {
  static const int buffer = 0;
  return StandingKey{static_cast<std::uint64_t>(generation), &buffer, MPI_COMM_NULL, 0};
}

TEST(StandingMessages, AKeyIsKeptOnItsThirdRunInARow) {
  StandingMessages s;
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);  // a graph called twice and freed keeps nothing
  EXPECT_EQ(s.use_for(key(1)), Use::kKeep);
}

TEST(StandingMessages, AnotherKeyStartsTheCountAgain) {
  StandingMessages s;
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  EXPECT_EQ(s.use_for(key(2)), Use::kPost);
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  EXPECT_EQ(s.use_for(key(1)), Use::kKeep);
  s.release();  // nothing built: the count starts again too
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
}

TEST(StandingMessages, ADeclinedKeyPostsUntilTheKeyChanges) {
  StandingMessages s;
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  ASSERT_EQ(s.use_for(key(1)), Use::kKeep);
  s.decline();
  for (int run = 0; run < 5; ++run) EXPECT_EQ(s.use_for(key(1)), Use::kPost);
  EXPECT_EQ(s.use_for(key(2)), Use::kPost);  // another key: counted anew
  EXPECT_EQ(s.use_for(key(2)), Use::kPost);
  EXPECT_EQ(s.use_for(key(2)), Use::kKeep);
  s.decline();
  s.release();  // forgets the declined key too
  EXPECT_EQ(s.use_for(key(2)), Use::kPost);
  EXPECT_EQ(s.use_for(key(2)), Use::kPost);
  EXPECT_EQ(s.use_for(key(2)), Use::kKeep);
}

}  // namespace
}  // namespace nbrcoll
