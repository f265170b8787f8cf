// nbrcoll's own topology text format.
#include <gtest/gtest.h>

#include "tests/unit/topo/expected.h"
#include "topo/text_format.h"

namespace nbrcoll::topo {
namespace {

std::string matrix_text(const std::vector<int>& m, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) s += std::to_string(m[static_cast<std::size_t>(i * n + j)]) + " ";
    s += "\n";
  }
  return s;
}

std::string frontier_text() {
  return "# Frontier node\n"
         "devices 8\n"
         "package 0 0 1 1 2 2 3 3   # two GCDs per MI250X\n"
         "numa 3 3 1 1 0 0 2 2\n\n"
         "links\n" +
         matrix_text(topo_test::kFrontierLinks, 8) + "hops\n" + matrix_text(topo_test::kFrontierHops, 8);
}

TEST(TextFormat, FullFrontierFile) {
  const LoadResult r = parse_topology_text(frontier_text(), "f.topo");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.devices, 8);
  EXPECT_EQ(r.topology.links, topo_test::kFrontierLinks);
  EXPECT_EQ(r.topology.hops, topo_test::kFrontierHops);
  EXPECT_EQ(r.topology.package, topo_test::kFrontierPackage);
  EXPECT_EQ(r.topology.numa, topo_test::kFrontierNuma);
  EXPECT_EQ(r.topology.source, "file:f.topo");
}

TEST(TextFormat, DefaultsDeriveFromLinks) {
  const LoadResult r = parse_topology_text("devices 8\r\nlinks\r\n" + matrix_text(topo_test::kFrontierLinks, 8), "x");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.hops, topo_test::kFrontierHops);
  EXPECT_EQ(r.topology.package, topo_test::kFrontierPackage);
  EXPECT_EQ(r.topology.numa, std::vector<int>(8, -1));

  const LoadResult only = parse_topology_text("devices 3", "x");
  ASSERT_EQ(only.error, "");
  EXPECT_EQ(only.topology.hops, (std::vector<int>{0, 1, 1, 1, 0, 1, 1, 1, 0}));
  EXPECT_EQ(only.topology.package, (std::vector<int>{0, 1, 2}));
}

void expect_error(const std::string& text, const std::string& fragment) {
  const LoadResult r = parse_topology_text(text, "t.txt");
  EXPECT_NE(r.error.find(fragment), std::string::npos) << "error was: " << r.error;
  EXPECT_EQ(r.topology.devices, 1);  // flat fallback
  EXPECT_EQ(r.topology.source, "flat");
}

TEST(TextFormat, MalformedFilesGiveErrorsWithLines) {
  expect_error("devices 2\nlinks\n0 1\n", "t.txt:2: links has 1 rows, expected 2");
  expect_error("devices 2\nlinks\n0 1\nhops\n0 1\n1 0\n", "t.txt:4: links has 1 rows, expected 2");
  expect_error("devices 2\nlinks\n0 x\n1 0\n", "t.txt:3: links row 0: 'x' is not an integer");
  expect_error("devices 2\nlinks\n0 1 1\n1 0\n", "t.txt:3: links row 0: expected 2 numbers, got 3");
  expect_error("devices 2\nlinks\n0 3\n1 0\n", "t.txt: links[0][1]=3 but links[1][0]=1");
  expect_error("devices 2\npackage 0 2\n", "package[1]=2");
  expect_error("devices 2\npackage 0\n", "t.txt:2: package: expected 2 numbers, got 1");
  expect_error("package 0 1\n", "t.txt:1: 'devices N' must come before 'package'");
  expect_error("devices two\n", "t.txt:1: 'two' is not a device count");
  expect_error("devices 0\n", "is not a device count");
  expect_error("devices 100000000\n", "is not a device count");
  expect_error("devices 99999999999999999999\n", "is not a device count");
  expect_error("devices 2\ndevices 2\n", "t.txt:2: 'devices' given twice");
  expect_error("devices 2\nlinks 0 1\n", "its rows follow");
  expect_error("devices 2\nbananas\n", "t.txt:2: unknown keyword 'bananas'");
  expect_error("", "t.txt: no 'devices N' line");
  expect_error("# only a comment\n", "no 'devices N' line");
  expect_error("devices 2\nnuma 0 0\nnuma 0 0\n", "'numa' given twice");
}

TEST(TextFormat, BinaryGarbageDoesNotCrash) {
  std::string junk;
  for (int i = 0; i < 2000; ++i) junk += static_cast<char>((i * 7919) % 256);
  const LoadResult r = parse_topology_text(junk, "junk");
  EXPECT_NE(r.error, "");
}

}  // namespace
}  // namespace nbrcoll::topo
