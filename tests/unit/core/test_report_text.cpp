// The run report's text (src/report/report_text.h): every line prefixed,
// counts and bytes summed over ranks, times as min / median / max over
// ranks, hand-off reasons by their words.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/report_text.h"

namespace nbrcoll::report {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

bool has_line(const std::vector<std::string>& lines, const std::string& want) {
  for (const std::string& l : lines)
    if (l == want) return true;
  return false;
}

TEST(ReportText, SumsCountsAndSpreadsTimes) {
  std::vector<RunCounters> ranks(3);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    RunCounters& c = ranks[r];
    c.calls[0][0] = 5;  // allgather, blocking
    c.calls[3][1] = 2;  // alltoallv, nonblocking
    c.plans[0] = 6;
    c.plans[kMixedPlan] = 1;
    c.handoffs[2] = r == 0 ? 1 : 0;
    c.bytes[static_cast<unsigned>(algos::LinkClass::kNetwork)] = 100;
    c.linear_bytes[static_cast<unsigned>(algos::LinkClass::kNetwork)] = 200;
    c.bytes[static_cast<unsigned>(algos::LinkClass::kSameDevice)] = 10;
    c.call_ns = (r == 2 ? 9 : r + 1) * 1000000000ULL;  // 1 s, 2 s, 9 s
    c.graphs = 3;
    c.setup_ns = 1000;
    c.setup_max_ns = 500 * (r + 1);
  }
  const char* names[] = {"taken", "off", "not ours"};
  const std::string text = report_text(ranks, {names, 3});
  const std::vector<std::string> lines = lines_of(text);
  for (const std::string& l : lines) EXPECT_EQ(l.rfind("nbrcoll report: ", 0), 0u) << l;
  EXPECT_TRUE(has_line(lines, "nbrcoll report: 3 ranks; counts and bytes are summed over ranks"));
  EXPECT_TRUE(has_line(lines, "nbrcoll report:   allgather                        15            0            0"));
  EXPECT_TRUE(has_line(lines, "nbrcoll report:   alltoallv                         0            6            0"));
  EXPECT_TRUE(has_line(lines, "nbrcoll report: calls by plan: linear 18, leader 0, aggregated 0, mixed 3"));
  EXPECT_TRUE(has_line(lines, "nbrcoll report: calls handed to the MPI: 1"));
  EXPECT_TRUE(has_line(lines, "nbrcoll report:              1  not ours"));
  EXPECT_TRUE(has_line(lines, "nbrcoll report:   network                                   300                   600"));
  EXPECT_TRUE(has_line(lines, "nbrcoll report:   same node (all but network)                30                     0"));
  EXPECT_TRUE(has_line(
      lines, "nbrcoll report: time in nbrcoll's calls per rank: min 1.000000 s, median 2.000000 s, max 9.000000 s"));
  EXPECT_TRUE(has_line(lines,
                       "nbrcoll report: graphs set up: 9 (per rank min 3, max 3), set-up time 0.000003 s in all, "
                       "longest 0.000002 s"));
}

TEST(ReportText, HandlesHeldAreSummedAndSigned) {
  std::vector<RunCounters> ranks(2);
  for (RunCounters& c : ranks) {
    c.held[static_cast<unsigned>(Handle::kCommunicator)] = 1;
    c.held[static_cast<unsigned>(Handle::kKeyval)] = 3;
  }
  ranks[1].held[static_cast<unsigned>(Handle::kRequest)] = 5;
  ranks[0].held[static_cast<unsigned>(Handle::kGroup)] = static_cast<std::uint64_t>(std::int64_t{-1});  // freed twice
  const std::string text = report_text(ranks, {});
  EXPECT_NE(text.find(": communicators 2, requests 5, datatypes 0, groups -1, attribute keys 6, error handlers 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("nbrcoll report: MPI handles still held at finalize ("), std::string::npos) << text;
}

TEST(ReportText, EvenRankCountsTakeTheMiddlePairsMean) {
  std::vector<RunCounters> ranks(2);
  ranks[0].call_ns = 1000000000ULL;
  ranks[1].call_ns = 2000000000ULL;
  const std::string text = report_text(ranks, {});
  EXPECT_NE(text.find("min 1.000000 s, median 1.500000 s, max 2.000000 s"), std::string::npos) << text;
}

}  // namespace
}  // namespace nbrcoll::report
