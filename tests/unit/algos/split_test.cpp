// split_point / share_bytes: integer, aligned, monotone, covering.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "algos/plan.h"

namespace nbrcoll::algos {
namespace {

__extension__ typedef unsigned __int128 Wide;

// Around 2^32 split_point changes from 64-bit to 128-bit arithmetic.
const std::vector<std::uint64_t> kBlocks = {0,
                                            1,
                                            2,
                                            63,
                                            64,
                                            65,
                                            127,
                                            128,
                                            1000,
                                            4095,
                                            4096,
                                            65537,
                                            1000003,
                                            UINT32_MAX - 1,
                                            UINT32_MAX,
                                            std::uint64_t{UINT32_MAX} + 1,
                                            (std::uint64_t{1} << 40) + 12345};

TEST(SplitPoint, EndsAreZeroAndTheBlock) {
  for (const std::uint64_t b : kBlocks) {
    for (std::uint32_t total = 1; total <= 9; ++total) {
      EXPECT_EQ(split_point(b, 0, total), 0u);
      EXPECT_EQ(split_point(b, total, total), b);
    }
  }
}

TEST(SplitPoint, MonotoneAlignedAndNearTheExactCut) {
  for (const std::uint64_t b : kBlocks) {
    for (std::uint32_t total = 1; total <= 17; ++total) {
      std::uint64_t prev = 0;
      for (std::uint32_t w = 0; w <= total; ++w) {
        const std::uint64_t cut = split_point(b, w, total);
        EXPECT_GE(cut, prev);
        EXPECT_LE(cut, b);
        if (w < total) {
          EXPECT_EQ(cut % kSplitAlignment, 0u) << b << " " << w << "/" << total;
          const auto exact = static_cast<std::uint64_t>(static_cast<Wide>(b) * w / total);
          EXPECT_LE(cut, exact);
          EXPECT_LT(exact - cut, kSplitAlignment);
        }
        prev = cut;
      }
    }
  }
}

TEST(SplitPoint, SharesTileTheBlock) {
  for (const std::uint64_t b : kBlocks) {
    for (std::uint32_t total = 1; total <= 12; ++total) {
      std::uint64_t covered = 0;
      for (std::uint32_t j = 0; j < total; ++j) {
        const ByteRange r = share_bytes({j, j + 1, total}, b);
        EXPECT_EQ(r.begin, covered);
        EXPECT_GE(r.end, r.begin);
        covered = r.end;
      }
      EXPECT_EQ(covered, b);
    }
  }
}

TEST(SplitPoint, TinyBlocksTravelAsOneFragment) {
  // Below the alignment every cut but the last is 0: the last share has it all.
  for (const std::uint64_t b : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{63}}) {
    for (std::uint32_t total = 2; total <= 8; ++total) {
      for (std::uint32_t j = 0; j + 1 < total; ++j) EXPECT_EQ(share_bytes({j, j + 1, total}, b).size(), 0u);
      EXPECT_EQ(share_bytes({total - 1, total, total}, b).size(), b);
    }
  }
}

TEST(SplitPoint, ZeroWeightSharesAreEmptyAndWholeIsWhole) {
  for (const std::uint64_t b : kBlocks) {
    EXPECT_EQ(share_bytes({3, 3, 7}, b).size(), 0u);
    EXPECT_EQ(share_bytes({0, 1, 1}, b), (ByteRange{0, b}));
  }
}

TEST(SplitPoint, LargestWeightsMatchTheExactCutOnBothSidesOf4GiB) {
  for (const std::uint64_t b : {std::uint64_t{UINT32_MAX}, std::uint64_t{UINT32_MAX} + 1}) {
    for (const std::uint32_t w : {1u, 2u, 4294967293u, 4294967294u}) {
      const auto exact = static_cast<std::uint64_t>(static_cast<Wide>(b) * w / 4294967295u);
      EXPECT_EQ(split_point(b, w, 4294967295u), exact - exact % kSplitAlignment) << b << " " << w;
    }
  }
}

TEST(SplitPoint, NoOverflowForHugeBlocks) {
  const std::uint64_t b = ~std::uint64_t{0} - 5;
  EXPECT_EQ(split_point(b, 1, 2), (b / 2) - (b / 2) % kSplitAlignment);
  EXPECT_EQ(split_point(b, 4294967294u, 4294967295u) % kSplitAlignment, 0u);
}

}  // namespace
}  // namespace nbrcoll::algos
