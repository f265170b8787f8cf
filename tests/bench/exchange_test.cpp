// core/exchange: block sizes and keys of every op, the edge matching of
// duplicate edges, and that check_received passes a correct exchange and
// catches a misplaced block or an overwritten guard.
#include "bench/core/exchange.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bench/core/fill.h"
#include "bench/core/graph.h"

using namespace nbrbench;

namespace {

// 0 -> 1 twice, 1 -> 1 (self), 1 -> 0, 2 -> 1, 0 -> 2: duplicates, a self edge, a rank without sends to 0.
Graph small_graph() {
  Graph g;
  g.n = 3;
  g.in.resize(3);
  g.out.resize(3);
  const std::vector<std::pair<int, int>> edges{{0, 1}, {0, 1}, {1, 1}, {1, 0}, {2, 1}, {0, 2}};
  for (const auto& [s, d] : edges) add_edge(g, s, d);
  return g;
}

// The receive areas after a correct exchange in call `call`: every sender's
// area filled, each slot copied from the block its matching out-edge sends.
std::vector<std::vector<std::uint8_t>> exchange(Op op, const Graph& g, std::uint64_t size, std::uint64_t call) {
  std::vector<Exchange> ex;
  std::vector<std::vector<std::uint8_t>> send, recv;
  for (int r = 0; r < g.n; ++r) {
    ex.push_back(layout_exchange(op, g, r, size, 16));
    send.emplace_back(ex.back().send_bytes);
    for (const Block& b : ex.back().send) fill_block(send.back().data() + b.offset, b.bytes, b.key, call);
    recv.emplace_back(ex.back().recv_bytes, kGuardByte);
  }
  for (int r = 0; r < g.n; ++r)
    for (const Block& b : ex[static_cast<std::size_t>(r)].recv) {
      const Block& from = ex[static_cast<std::size_t>(b.peer)].send[per_edge(op) ? b.edge : 0];
      EXPECT_EQ(from.bytes, b.bytes);
      std::memcpy(recv[static_cast<std::size_t>(r)].data() + b.offset,
                  send[static_cast<std::size_t>(b.peer)].data() + from.offset, b.bytes);
    }
  return recv;
}

}  // namespace

TEST(Exchange, NamesSizesAndKeys) {
  EXPECT_EQ(op_name(Op::kAllgather, Mode::kBlocking), "neighbor_allgather");
  EXPECT_EQ(op_name(Op::kAlltoallv, Mode::kNonblocking), "ineighbor_alltoallv");
  EXPECT_EQ(op_name(Op::kAlltoall, Mode::kPersistent), "neighbor_alltoall_init");
  EXPECT_EQ(parse_op("allgatherv"), Op::kAllgatherv);
  EXPECT_FALSE(parse_op("bcast"));
  EXPECT_EQ(block_bytes(Op::kAlltoall, 100, 3, 5), 100u);
  // v-variants: 1/4 .. 4/4 of the size, rounded up; allgatherv one size per sender.
  EXPECT_EQ(block_bytes(Op::kAllgatherv, 100, 0, 0), 25u);
  EXPECT_EQ(block_bytes(Op::kAllgatherv, 100, 1, 0), 100u);
  EXPECT_EQ(block_bytes(Op::kAllgatherv, 100, 1, 7), 100u);
  EXPECT_EQ(block_bytes(Op::kAlltoallv, 100, 0, 1), 100u);
  EXPECT_EQ(block_bytes(Op::kAlltoallv, 100, 0, 2), 75u);
  EXPECT_EQ(block_bytes(Op::kAlltoallv, 1, 2, 3), 1u);
  EXPECT_EQ(block_key(Op::kAllgather, 7, 3), 7u);
  EXPECT_NE(block_key(Op::kAlltoall, 7, 0), block_key(Op::kAlltoall, 7, 1));
  EXPECT_NE(block_key(Op::kAlltoall, 7, 0), block_key(Op::kAlltoall, 8, 0));
  EXPECT_NE(block_key(Op::kAlltoall, 7, 0), 7u);
}

TEST(Exchange, DuplicateEdgesMatchInOrder) {
  const Graph g = small_graph();
  // in[1] = {0, 0, 1, 2}; out[0] = {1, 1, 2}, out[1] = {1, 0}, out[2] = {1}.
  EXPECT_EQ(matching_out_index(g, 1, 0), 0u);
  EXPECT_EQ(matching_out_index(g, 1, 1), 1u);
  EXPECT_EQ(matching_out_index(g, 1, 2), 0u);  // the self edge
  EXPECT_EQ(matching_out_index(g, 1, 3), 0u);
  EXPECT_EQ(matching_out_index(g, 2, 0), 2u);
}

TEST(Exchange, LayoutOfTheVVariantsHasGuardsBetweenBlocks) {
  const Graph g = small_graph();
  const Exchange ag = layout_exchange(Op::kAllgather, g, 1, 8, 16);
  ASSERT_EQ(ag.recv.size(), 4u);
  EXPECT_EQ(ag.send.size(), 1u);
  EXPECT_EQ(ag.recv[1].offset, 16u + 8u);
  EXPECT_EQ(ag.recv_bytes, 16u + 4 * 8u + 16u);
  const Exchange av = layout_exchange(Op::kAlltoallv, g, 0, 8, 16);
  ASSERT_EQ(av.send.size(), 3u);
  EXPECT_EQ(av.send[1].offset, av.send[0].bytes);
  ASSERT_EQ(av.recv.size(), 1u);  // from rank 1's out-edge 1
  EXPECT_EQ(av.recv[0].bytes, block_bytes(Op::kAlltoallv, 8, 1, 1));
  const Exchange v = layout_exchange(Op::kAllgatherv, g, 1, 8, 16);
  EXPECT_EQ(v.recv[1].offset, v.recv[0].offset + v.recv[0].bytes + 16u);
}

TEST(Exchange, CheckPassesCorrectDataAndCatchesMisplacedBlocksAndGuards) {
  const Graph g = small_graph();
  for (Op op : {Op::kAllgather, Op::kAllgatherv, Op::kAlltoall, Op::kAlltoallv})
    for (std::uint64_t size : {1u, 13u, 64u}) {
      auto recv = exchange(op, g, size, 5);
      for (int r = 0; r < g.n; ++r) {
        const Exchange ex = layout_exchange(op, g, r, size, 16);
        EXPECT_FALSE(check_received(recv[static_cast<std::size_t>(r)].data(), ex, 5)) << op_name(op, Mode::kBlocking);
        EXPECT_TRUE(check_received(recv[static_cast<std::size_t>(r)].data(), ex, 6));  // a stale call
      }
    }
  // alltoall, rank 1: slots 0 and 1 both come from rank 0 (its out-edges 0
  // and 1); swapped, the same source's bytes in the wrong slot must show.
  auto recv = exchange(Op::kAlltoall, g, 32, 5);
  const Exchange ex = layout_exchange(Op::kAlltoall, g, 1, 32, 16);
  auto& area = recv[1];
  std::vector<std::uint8_t> tmp(area.begin() + 16, area.begin() + 48);
  std::copy(area.begin() + 48, area.begin() + 80, area.begin() + 16);
  std::copy(tmp.begin(), tmp.end(), area.begin() + 48);
  const auto bad = check_received(area.data(), ex, 5);
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->find("slot 0 (source rank 0, its out-edge 0)"), std::string::npos) << *bad;
  // A byte written past the last block.
  auto guarded = exchange(Op::kAlltoallv, g, 32, 5);
  const Exchange exv = layout_exchange(Op::kAlltoallv, g, 1, 32, 16);
  guarded[1][exv.recv[1].offset - 1] = 0;  // the gap between slots 0 and 1
  const auto over = check_received(guarded[1].data(), exv, 5);
  ASSERT_TRUE(over);
  EXPECT_NE(over->find("guard byte"), std::string::npos) << *over;
}
