#include "bench/core/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

using namespace nbrbench;

namespace {

// The MPI consistency rule: the multiset of edges seen from the senders'
// out-lists equals the one seen from the receivers' in-lists.
void expect_consistent(const Graph& g) {
  std::map<std::pair<int, int>, int> from_out, from_in;
  for (int v = 0; v < g.n; ++v) {
    for (int d : g.out[static_cast<std::size_t>(v)]) ++from_out[{v, d}];
    for (int s : g.in[static_cast<std::size_t>(v)]) ++from_in[{s, v}];
  }
  EXPECT_EQ(from_out, from_in);
}

}  // namespace

TEST(RandomSparseGraph, SameSeedSameGraphAndNoSelfEdges) {
  const Graph a = random_sparse_graph(16, 0.6, 7), b = random_sparse_graph(16, 0.6, 7);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.in, b.in);
  for (int v = 0; v < 16; ++v) {
    const auto& o = a.out[static_cast<std::size_t>(v)];
    EXPECT_EQ(std::count(o.begin(), o.end(), v), 0);
    EXPECT_TRUE(std::is_sorted(o.begin(), o.end()));
  }
  expect_consistent(a);
  EXPECT_NE(random_sparse_graph(16, 0.6, 8).out, a.out);
}

TEST(RandomSparseGraph, DensityExtremesAndMean) {
  EXPECT_EQ(random_sparse_graph(10, 0.0, 1).edges(), 0u);
  EXPECT_EQ(random_sparse_graph(10, 1.0, 1).edges(), 90u);
  const auto e = static_cast<double>(random_sparse_graph(100, 0.3, 5).edges());
  EXPECT_NEAR(e / 9900.0, 0.3, 0.02);
  EXPECT_THROW(random_sparse_graph(4, 1.5, 1), std::invalid_argument);
}

TEST(MooreGraph, NeighbourCountAndLargeGrid) {
  const Graph g = moore_graph({5, 5}, 1);
  for (int v = 0; v < 25; ++v) {
    auto o = g.out[static_cast<std::size_t>(v)];
    EXPECT_EQ(o.size(), 8u);
    std::sort(o.begin(), o.end());
    EXPECT_EQ(std::unique(o.begin(), o.end()), o.end()) << "no duplicates on a 5x5 grid";
  }
  // Rank 0 = (0,0): neighbours wrap around.
  auto o = g.out[0];
  std::sort(o.begin(), o.end());
  EXPECT_EQ(o, (std::vector<int>{1, 4, 5, 6, 9, 20, 21, 24}));
  expect_consistent(g);
  EXPECT_EQ(moore_graph({4, 4, 4}, 1).out[0].size(), 26u);
  EXPECT_EQ(moore_graph({7, 7}, 2).out[3].size(), 24u);
}

TEST(MooreGraph, SmallGridKeepsDuplicateAndSelfEdges) {
  // 2x2 grid, r = 1: each of the 8 offsets lands on one of 4 ranks.
  const Graph g = moore_graph({2, 2}, 1);
  auto o = g.out[0];
  ASSERT_EQ(o.size(), 8u);
  std::sort(o.begin(), o.end());
  EXPECT_EQ(o, (std::vector<int>{1, 1, 2, 2, 3, 3, 3, 3}));
  expect_consistent(g);
  // 1-D grid of 2, r = 2: offsets -2 and 2 reach the rank itself.
  const Graph s = moore_graph({2}, 2);
  EXPECT_EQ(std::count(s.out[0].begin(), s.out[0].end(), 0), 2);
  expect_consistent(s);
}

TEST(MooreGraph, InListIsOutListMirrored) {
  const Graph g = moore_graph({3, 4}, 1);
  // Slot k of v's in-list is v - offset_k, out-list slot k is v + offset_k.
  for (int v = 0; v < 12; ++v)
    for (std::size_t k = 0; k < 8; ++k) {
      const int src = g.in[static_cast<std::size_t>(v)][k];
      EXPECT_EQ(g.out[static_cast<std::size_t>(src)][k], v);
    }
}

TEST(EdgeList, ParsesCommentsAndRejectsBadLines) {
  std::istringstream in("# header\n0 1\n\n1 2  # trailing\n2 2\n0 1\n");
  const Graph g = read_edge_list(in, 3);
  EXPECT_EQ(g.out[0], (std::vector<int>{1, 1}));
  EXPECT_EQ(g.in[2], (std::vector<int>{1, 2}));
  expect_consistent(g);
  std::istringstream bad("0 1\n1 x\n");
  EXPECT_THROW(read_edge_list(bad, 3), std::runtime_error);
  std::istringstream range("0 3\n");
  EXPECT_THROW(read_edge_list(range, 3), std::runtime_error);
  std::istringstream three("0 1 2\n");
  EXPECT_THROW(read_edge_list(three, 3), std::runtime_error);
}
