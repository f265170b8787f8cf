// Creation lines handing their serials down to their communicators'
// duplicates (src/state/line_serials.h): no serial is ever held by two
// lines, a line's own graphs and its duplicates draw from ranges that never
// meet, whatever the order of the two, and a duplicate that would get too
// few gets none.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "state/line_serials.h"
#include "state/tag_blocks.h"

namespace nbrcoll {
namespace {

TEST(LineSerials, ALineHoldsAQuarterOfItsRangeTheRestForItsDuplicates) {
  const LineSerials l = line_over(100, 228);
  EXPECT_EQ(l.next_serial, 100);
  EXPECT_EQ(l.end_serial, 132);
  EXPECT_EQ(l.kids_begin, 132);
  EXPECT_EQ(l.kids_end, 228);
  // At least kLineSerials its own, where the range has them.
  const LineSerials small = line_over(0, 2 * kLineSerials);
  EXPECT_EQ(small.end_serial, kLineSerials);
  EXPECT_EQ(small.kids_end, 2 * kLineSerials);
  const LineSerials tiny = line_over(0, kLineSerials / 2);
  EXPECT_EQ(tiny.end_serial, kLineSerials / 2);
  EXPECT_GE(tiny.kids_begin, tiny.kids_end);
  const LineSerials empty = line_over(7, 7);
  EXPECT_GE(empty.next_serial, empty.end_serial);
  EXPECT_GE(empty.kids_begin, empty.kids_end);
}

TEST(LineSerials, DuplicatesTakeAQuarterOfWhatIsLeftFromTheTop) {
  LineSerials world = line_over(16384, 32768);  // Open MPI 4.1.4: 32768 serials, the upper half drawn
  EXPECT_EQ(world.end_serial, 20480);
  const LineSerials first = take_for_duplicate(world);  // a quarter of 12288
  EXPECT_EQ(first.next_serial, 29696);
  EXPECT_EQ(first.end_serial, 30464);
  EXPECT_EQ(first.kids_end, 32768);
  EXPECT_EQ(world.kids_end, 29696);
  const LineSerials second = take_for_duplicate(world);  // a quarter of 9216
  EXPECT_EQ(second.kids_end, 29696);
  EXPECT_EQ(second.end_serial - second.next_serial, 576);
  EXPECT_EQ(world.next_serial, 16384);  // its own graphs' range untouched
  EXPECT_EQ(world.end_serial, 20480);
}

TEST(LineSerials, TooFewLeftGivesNone) {
  LineSerials line = line_over(0, 32 * kLineSerials / 3);  // duplicates' range: 8 * kLineSerials
  ASSERT_EQ(line.kids_end - line.kids_begin, 8 * kLineSerials);
  const LineSerials got = take_for_duplicate(line);  // a quarter: 2 * kLineSerials
  EXPECT_EQ(got.end_serial - got.next_serial, kLineSerials);
  EXPECT_EQ(got.kids_end - got.kids_begin, kLineSerials);
  EXPECT_EQ(got.kids_end, 32 * kLineSerials / 3);
  LineSerials small = line_over(0, 4 * (8 * kLineSerials - 1) / 3);  // a quarter of the rest is under 2 * kLineSerials
  ASSERT_LT((small.kids_end - small.kids_begin) / 4, 2 * kLineSerials);
  const std::int64_t before = small.kids_end;
  const LineSerials none = take_for_duplicate(small);
  EXPECT_GE(none.next_serial, none.end_serial);
  EXPECT_GE(none.kids_begin, none.kids_end);
  EXPECT_EQ(small.kids_end, before);  // nothing taken
}

// DOLFINx's function-space set-up under Open MPI 4.1.4 (NBRCOLL_DEBUG=trace):
// eight duplicates of MPI_COMM_WORLD, four of its sixth, and graphs from
// all of them; every one of these duplicates gets serials of its own.
TEST(LineSerials, DolfinxsDuplicatesAllGetSerials) {
  LineSerials world = line_over(16384, 32768);
  std::vector<LineSerials> dups;
  for (int k = 0; k < 8; ++k) dups.push_back(take_for_duplicate(world));
  for (int k = 0; k < 4; ++k) dups.push_back(take_for_duplicate(dups[5]));
  for (const LineSerials& d : dups) EXPECT_GE(d.end_serial - d.next_serial, kLineSerials);
}

// A random tree of duplicates, with graphs drawn from every line between
// duplications: every serial drawn is drawn once, and lies in the range the
// first line started with.
TEST(LineSerials, NoSerialIsDrawnTwiceOverATreeOfDuplicates) {
  for (const std::int64_t serials : {graph_serials(268435455LL), graph_serials(2147483647LL)}) {
    std::mt19937 rng(7U + static_cast<unsigned>(serials));
    std::vector<LineSerials> lines{line_over(serials / 2, serials)};
    std::set<std::int64_t> drawn;
    int duplicates = 0;
    for (int step = 0; step < 4000; ++step) {
      const std::size_t at = rng() % lines.size();
      if (rng() % 3 == 0) {
        LineSerials child = take_for_duplicate(lines[at]);
        if (child.next_serial < child.end_serial) {
          EXPECT_GE(child.end_serial - child.next_serial, kLineSerials);
          ++duplicates;
          lines.push_back(child);
        }
        continue;
      }
      LineSerials& l = lines[at];
      if (l.next_serial >= l.end_serial) continue;
      const std::int64_t s = l.next_serial++;
      EXPECT_TRUE(drawn.insert(s).second) << s;
      EXPECT_GE(s, serials / 2);
      EXPECT_LT(s, serials);
    }
    EXPECT_GT(duplicates, 5) << serials;
    EXPECT_GT(drawn.size(), 500U) << serials;
  }
}

}  // namespace
}  // namespace nbrcoll
