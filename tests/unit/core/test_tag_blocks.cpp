// Tag blocks on the shared communicator (src/state/tag_blocks.h): no two handles
// share a tag, every tag stays at or below MPI_TAG_UB, duplicates number
// alike from their parent alone.
#include <gtest/gtest.h>

#include <set>

#include "state/comm_state.h"
#include "state/tag_blocks.h"

namespace nbrcoll {
namespace {

TEST(TagBlocks, SerialsFitBelowTheTagBound) {
  for (const long long tag_ub : {268435455LL, 2147483647LL, kTagBlock * kHandlesPerGraph * 3 - 1}) {
    const std::int64_t serials = graph_serials(tag_ub);
    ASSERT_GT(serials, 0) << tag_ub;
    // The last tag of the last handle of the last serial is within bounds; one more serial is not.
    EXPECT_LE(tag_block_base(serials - 1, kHandlesPerGraph - 1) + kTagBlock - 1, tag_ub);
    EXPECT_GT(tag_block_base(serials, kHandlesPerGraph - 1) + kTagBlock - 1, tag_ub);
  }
  EXPECT_EQ(graph_serials(268435455LL), 4096);    // MPICH 4.0.2's MPI_TAG_UB
  EXPECT_EQ(graph_serials(2147483647LL), 32768);  // Open MPI 4.1.4's
  EXPECT_EQ(graph_serials(32767), 0);  // the least MPI_TAG_UB the standard allows: every graph makes a communicator
  EXPECT_EQ(graph_serials(kTagBlock * kHandlesPerGraph - 2), 0);
  EXPECT_EQ(graph_serials(-1), 0);
}

TEST(TagBlocks, BlocksOfDistinctHandlesNeverOverlap) {
  std::set<long long> bases;
  for (std::int64_t serial = 0; serial < 5; ++serial)
    for (int h = 0; h < kHandlesPerGraph; ++h) EXPECT_TRUE(bases.insert(tag_block_base(serial, h)).second);
  long long previous = -kTagBlock;
  for (const long long b : bases) {
    EXPECT_GE(b - previous, kTagBlock);
    previous = b;
  }
}

TEST(TagBlocks, DuplicatesTakeDistinctHandlesInHeapOrder) {
  // Every handle reachable by duplicating is reached once, from one parent and ordinal.
  std::set<int> seen{0};
  std::vector<int> frontier{0};
  while (!frontier.empty()) {
    const int parent = frontier.back();
    frontier.pop_back();
    for (int k = 1; k <= kDupBranching + 1; ++k) {
      const int h = duplicate_handle(parent, k);
      if (h < 0) continue;
      EXPECT_LE(k, kDupBranching);
      EXPECT_LT(h, kHandlesPerGraph);
      EXPECT_TRUE(seen.insert(h).second) << "handle " << h << " twice";
      frontier.push_back(h);
    }
  }
  EXPECT_EQ(duplicate_handle(0, 1), 1);
  EXPECT_EQ(duplicate_handle(0, kDupBranching), kDupBranching);
  EXPECT_EQ(duplicate_handle(1, 1), kDupBranching + 1);
  EXPECT_EQ(duplicate_handle(0, 0), -1);
  EXPECT_EQ(duplicate_handle(0, kDupBranching + 1), -1);  // a fifth duplicate of one handle has no block
  EXPECT_EQ(duplicate_handle(kHandlesPerGraph - 1, 1), -1);
  EXPECT_EQ(duplicate_handle(-1, 1), -1);
}

TEST(TagBlocks, WindowsPlanTagsNotesAndTheAckFit) {
  for (const int stride : {1, 2, 7, 31, 32, 100, 2047}) {
    const int w = tag_windows_within(kTagBlock, stride, kMaxTagWindows);
    ASSERT_GE(w, 1) << stride;
    EXPECT_LE(w, kMaxTagWindows);
    // Plan tags [0, w*stride), note tags [w*stride, 2*w*stride), the ack at kTagBlock - 1.
    EXPECT_LT(2LL * w * stride, kTagBlock) << stride;
    EXPECT_TRUE(w == kMaxTagWindows || 2LL * (w + 1) * stride >= kTagBlock) << stride;
  }
  EXPECT_EQ(tag_windows_within(kTagBlock, 1, kMaxTagWindows), kMaxTagWindows);
  EXPECT_EQ(tag_windows_within(kTagBlock, 2048, kMaxTagWindows), 0);  // not one window fits
  EXPECT_EQ(tag_windows_within(kTagBlock, 0, kMaxTagWindows), 0);
}

}  // namespace
}  // namespace nbrcoll
