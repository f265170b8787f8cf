// The cost model: machine files, what a plan moves, the per-rank time, the
// agreed table and its choice; and the choices it makes on known graphs.
#include "algos/cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <span>
#include <string>

#include "algos/testing/graphs.h"
#include "tests/unit/algos/test_support.h"

namespace nbrcoll::algos::testing {
namespace {

TEST(CostModel, MachinesRoundTripThroughTheirText) {
  for (const std::string& name : builtin_machine_names()) {
    const MachineModel m = *builtin_machine(name);
    std::string error;
    const auto back = parse_machine(format_machine(m), MachineModel{}, error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->name, m.name);
    for (int c = 0; c < kLinkClassCount; ++c) {
      EXPECT_EQ(back->link[static_cast<std::size_t>(c)].alpha_us, m.link[static_cast<std::size_t>(c)].alpha_us);
      EXPECT_EQ(back->link[static_cast<std::size_t>(c)].bytes_per_us, m.link[static_cast<std::size_t>(c)].bytes_per_us);
    }
    EXPECT_EQ(back->nic_bytes_per_us, m.nic_bytes_per_us);
    EXPECT_EQ(back->copy_bytes_per_us, m.copy_bytes_per_us);
    EXPECT_EQ(back->cores, m.cores);
    EXPECT_EQ(back->burst_bytes, m.burst_bytes);
    EXPECT_EQ(back->floor_us, m.floor_us);
  }
  EXPECT_FALSE(builtin_machine("no-such-machine"));
  MachineModel m = *builtin_machine("emulated");
  m.burst_bytes = 262144;
  m.floor_us = 312.5;
  std::string error;
  const auto back = parse_machine(format_machine(m), MachineModel{}, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->burst_bytes, 262144);
  EXPECT_EQ(back->floor_us, 312.5);
}

TEST(CostModel, RemoteLeadersAreTheRanksThatFillTheNetwork) {
  EXPECT_EQ(remote_leaders_for(*builtin_machine("frontier")), 8);  // 100 GB/s NICs, 12 GB/s a rank
  EXPECT_EQ(remote_leaders_for(*builtin_machine("generic")), 1);
  EXPECT_EQ(remote_leaders_for(*builtin_machine("emulated")), 1);
  MachineModel m = *builtin_machine("generic");
  m.nic_bytes_per_us = 3.4 * m.link[static_cast<std::size_t>(LinkClass::kNetwork)].bytes_per_us;
  EXPECT_EQ(remote_leaders_for(m), 3);
  m.nic_bytes_per_us = 0.2 * m.link[static_cast<std::size_t>(LinkClass::kNetwork)].bytes_per_us;
  EXPECT_EQ(remote_leaders_for(m), 1);
}

TEST(CostModel, ParseKeepsTheBaseAndNamesTheBadLine) {
  const MachineModel base = *builtin_machine("frontier");
  std::string error;
  const auto m = parse_machine("# measured\nalpha.network = 7.5\n\nnic = 1e4  # one NIC\n", base, error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->link[static_cast<std::size_t>(LinkClass::kNetwork)].alpha_us, 7.5);
  EXPECT_EQ(m->nic_bytes_per_us, 1e4);
  EXPECT_EQ(m->copy_bytes_per_us, base.copy_bytes_per_us);
  EXPECT_FALSE(parse_machine("cores = 4\nrate.network = -1\n", base, error));
  EXPECT_EQ(error, "line 2: '-1' is not a positive number");
  EXPECT_FALSE(parse_machine("alpha.netwrok = 1\n", base, error));
  EXPECT_EQ(error, "line 1: unknown key 'alpha.netwrok'");
  EXPECT_FALSE(parse_machine("nic 3\n", base, error));
  EXPECT_EQ(error, "line 1: expected key = value");
  // burst and floor alone may be 0; nothing may be negative.
  const auto zero = parse_machine("burst = 0\nfloor = 0.0\n", base, error);
  ASSERT_TRUE(zero) << error;
  EXPECT_EQ(zero->burst_bytes, 0);
  EXPECT_EQ(zero->floor_us, 0);
  EXPECT_FALSE(parse_machine("nic = 0\n", base, error));
  EXPECT_FALSE(parse_machine("floor = -2\n", base, error));
  EXPECT_EQ(error, "line 1: '-2' is not a positive number");
  EXPECT_FALSE(parse_machine("burst = 0x\n", base, error));
}

TEST(CostModel, LoadOfTheLinearPlanIsOneMessagePerEdge) {
  const CommGraph g = complete_2x2();
  const Plan p = build_linear_plan(make_plan_input(g, 0));
  const RankLoad l = rank_load(p, 1000);
  const auto net = static_cast<std::size_t>(LinkClass::kNetwork);
  EXPECT_EQ(l.sent_messages[net], 2u);
  EXPECT_EQ(l.sent_bytes[net], 2000u);
  EXPECT_EQ(l.recv_messages[net], 2u);
  EXPECT_EQ(l.copy_bytes, 0u);
  EXPECT_EQ(l.forwards_from, kLinkClassCount);
}

TEST(CostModel, LoadOfAnOwnerCountsItsBundlesAndWhatItForwards) {
  const CommGraph g = complete_2x2();
  for (int r = 0; r < g.size(); ++r) {
    const Plan p = build_aggregated_alltoall_plan(make_plan_input(g, r));
    const RankLoad l = rank_load(p, 1000);
    const auto net = static_cast<std::size_t>(LinkClass::kNetwork);
    if (l.sent_messages[net] == 0) continue;
    // The out-owner: one network bundle of the node's 4 blocks (header 32 B).
    EXPECT_EQ(l.sent_messages[net], 1u);
    EXPECT_EQ(l.sent_bytes[net], 4032u);
    EXPECT_GE(l.copy_bytes, 4000u);  // packed
  }
  // Per direction the out-owner forwards the other source's two blocks and
  // the in-owner scatters two blocks to the other destination: 8 in all.
  std::uint64_t forwarded = 0;
  for (int r = 0; r < g.size(); ++r)
    forwarded += rank_load(build_aggregated_alltoall_plan(make_plan_input(g, r)), 1000).forwarded_bytes;
  EXPECT_EQ(forwarded, 8000u);
}

// The grouped load (what the cost rows evaluate at every size) against a
// fragment-by-fragment count, for every rank's leader plan of a random graph
// on 2 nodes x 8 ranks, at every model size; the aggregated plans' groups
// hold every fragment and bundle.
TEST(CostModel, GroupedLoadEqualsTheFragmentByFragmentCount) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 8);
  Rng rng(11);
  set_edges(g, erdos_renyi_edges(g.size(), 0.5, rng), &rng);
  const auto fragments = [](const std::vector<LoadShape::Group>& groups) {
    std::uint64_t n = 0;
    for (const LoadShape::Group& grp : groups) n += grp.count;
    return n;
  };
  for (int r = 0; r < g.size(); ++r) {
    const PlanInput input = make_plan_input(g, r);
    const Plan p = build_leader_plan(input);
    ASSERT_TRUE(p.bundle_sends.empty() && p.bundle_recvs.empty());
    const LoadShape shape = load_shape(p);
    EXPECT_EQ(fragments(shape.sends), p.sends.size());
    EXPECT_EQ(fragments(shape.recvs), p.recvs.size());
    for (const std::uint64_t b : model_sizes()) {
      RankLoad want;
      for (const Send& s : p.sends) {
        const auto c = static_cast<std::size_t>(s.link);
        const std::uint64_t bytes = share_bytes(s.share, b).size();
        ++want.sent_messages[c];
        want.sent_bytes[c] += bytes;
        if (s.after_recv < 0) continue;
        const int from = static_cast<int>(p.recvs[static_cast<std::size_t>(s.after_recv)].link);
        want.forwards_from = want.forwards_from == kLinkClassCount ? from : std::max(want.forwards_from, from);
        want.forwarded_bytes += bytes;
        want.forward_wait_bytes = std::max(want.forward_wait_bytes, bytes);
      }
      for (const Recv& v : p.recvs) {
        ++want.recv_messages[static_cast<std::size_t>(v.link)];
        want.recv_bytes[static_cast<std::size_t>(v.link)] += share_bytes(v.share, b).size();
      }
      want.copy_bytes = b * p.copies.size();
      const RankLoad got = rank_load(shape, b);
      const std::string at = "rank " + std::to_string(r) + ", " + std::to_string(b) + " B";
      EXPECT_EQ(got.sent_messages, want.sent_messages) << at;
      EXPECT_EQ(got.sent_bytes, want.sent_bytes) << at;
      EXPECT_EQ(got.recv_messages, want.recv_messages) << at;
      EXPECT_EQ(got.recv_bytes, want.recv_bytes) << at;
      EXPECT_EQ(got.copy_bytes, want.copy_bytes) << at;
      EXPECT_EQ(got.forwards_from, want.forwards_from) << at;
      EXPECT_EQ(got.forwarded_bytes, want.forwarded_bytes) << at;
      EXPECT_EQ(got.forward_wait_bytes, want.forward_wait_bytes) << at;
    }
    const Plan agg = build_aggregated_plan(input);
    const LoadShape agg_shape = load_shape(agg);
    EXPECT_EQ(fragments(agg_shape.sends), agg.sends.size());
    EXPECT_EQ(fragments(agg_shape.recvs), agg.recvs.size());
    EXPECT_EQ(agg_shape.bundle_sends.size(), agg.bundle_sends.size());
    EXPECT_EQ(agg_shape.bundle_recvs.size(), agg.bundle_recvs.size());
  }
}

// ---- absolute predictions, worked out by hand --------------------------------
// From the formula in algos/README.md ("Cost model"), with n ranks on the
// node, s = max(1, n / cores), b = max(network bytes sent, received):
//   T = s * (sum_c alpha_c (sent_c + recv_c) / 2 + sum_{c != net} max(sent_c, recv_c bytes) / R_c
//            + copy_bytes / R_copy)
//     + max(b / R_net, node_network_bytes / R_nic) + [alpha_f + w / R_f]
// The machine's numbers are powers of two, so every time below is exact in
// binary and a row (ns, truncated) is exact too.

// alpha (us) 0.25 / 0.5 / 0.75 / 1 / 2 and rate (bytes/us) 4096 / 2048 /
// 1024 / 512 / 256 for same-device / same-package / linked / multi-hop /
// network; NIC 1024 bytes/us, copies 8192 bytes/us, 4 cores.
MachineModel hand_machine() {
  MachineModel m;
  m.name = "hand";
  m.link = {LinkCost{0.25, 4096}, LinkCost{0.5, 2048}, LinkCost{0.75, 1024}, LinkCost{1.0, 512}, LinkCost{2.0, 256}};
  m.nic_bytes_per_us = 1024;
  m.copy_bytes_per_us = 8192;
  m.cores = 4;
  return m;
}

// The row's entry at block size `bytes` (one of model_sizes()).
std::int64_t row_at(const std::vector<std::int64_t>& row, std::uint64_t bytes) {
  const std::vector<std::uint64_t>& sizes = model_sizes();
  const auto at = std::find(sizes.begin(), sizes.end(), bytes);
  EXPECT_NE(at, sizes.end()) << bytes << " is not a model size";
  return at == sizes.end() ? -1 : row[static_cast<std::size_t>(at - sizes.begin())];
}

Send whole_send(LinkClass link, int after_recv = -1) {
  Send s;
  s.link = link;
  s.after_recv = after_recv;
  return s;
}
Recv whole_recv(LinkClass link) {
  Recv v;
  v.link = link;
  return v;
}

TEST(CostModel, HandWorkedRowOfOneBlockEachWayOverTheNetwork) {
  const MachineModel m = hand_machine();
  Plan p;
  p.sends = {whole_send(LinkClass::kNetwork)};
  p.recvs = {whole_recv(LinkClass::kNetwork)};
  // n = 1, the node sends 1 block. B = 1024:
  //   messages 2 * (1 + 1) / 2 = 2; network max(1024 / 256, 1024 / 1024) = 4; T = 6 us
  EXPECT_EQ(predict_rank_us(rank_load(p, 1024), m, 1, 1024), 6.0);
  const std::vector<std::int64_t> row = predict_row_ns(p, m, 1, 1);
  EXPECT_EQ(row_at(row, 1024), 6000);
  EXPECT_EQ(row_at(row, 0), 2000);  // the messages only
  // B = 64 KiB: 2 + max(65536 / 256, 65536 / 1024) = 2 + 256 = 258 us
  EXPECT_EQ(row_at(row, 65536), 258000);
  // n = 8 ranks on the node (s = 8 / 4 = 2), the node sends 8 blocks:
  //   s * messages = 2 * 2 = 4; network max(4, 8 * 1024 / 1024) = 8 (not stretched); T = 12 us
  EXPECT_EQ(row_at(predict_row_ns(p, m, 8, 8), 1024), 12000);
}

TEST(CostModel, HandWorkedBurstAndFloor) {
  MachineModel m = hand_machine();
  m.burst_bytes = 32768;
  m.floor_us = 10;
  Plan p;
  p.sends = {whole_send(LinkClass::kNetwork)};
  p.recvs = {whole_recv(LinkClass::kNetwork)};
  const std::vector<std::int64_t> row = predict_row_ns(p, m, 1, 1);
  // B = 1024: within the burst, no network time: messages 2 us. The floor
  // is not in the rows auto chooses from (every plan pays it alike)...
  EXPECT_EQ(row_at(row, 1024), 2000);
  EXPECT_EQ(predict_rank_us(rank_load(p, 1024), m, 1, 1024), 2.0);
  // ... but in what the tools report: 10 + 2 = 12 us.
  EXPECT_EQ(reported_us(predict_rank_us(rank_load(p, 1024), m, 1, 1024), m), 12.0);
  // B = 64 KiB: 2 + max((65536 - 32768) / 256, (65536 - 32768) / 1024) = 2 + 128 = 130 us
  EXPECT_EQ(row_at(row, 65536), 130000);
  // n = 8, the node sends 8 blocks of 64 KiB: the node's bytes beyond the
  // burst, (524288 - 32768) / 1024 = 480; messages stretched 2 * 2 = 4: 484 us
  EXPECT_EQ(row_at(predict_row_ns(p, m, 8, 8), 65536), 484000);
  // Without a burst: 4 + 524288 / 1024 = 516 us.
  m.burst_bytes = 0;
  EXPECT_EQ(row_at(predict_row_ns(p, m, 8, 8), 65536), 516000);
}

TEST(CostModel, HandWorkedRowInsideANode) {
  const MachineModel m = hand_machine();
  Plan p;  // two blocks to same-package peers, one from a linked peer, one local copy
  p.sends = {whole_send(LinkClass::kSamePackage), whole_send(LinkClass::kSamePackage)};
  p.recvs = {whole_recv(LinkClass::kLinked)};
  p.copies = {LocalCopy{}};
  // B = 1024, n = 2 (s = 1):
  //   messages 0.5 * 2 / 2 + 0.75 * 1 / 2 = 0.875
  //   bytes: same-package max(2048, 0) / 2048 = 1, linked max(0, 1024) / 1024 = 1
  //   copies 1024 / 8192 = 0.125; no network: T = 3 us
  EXPECT_EQ(row_at(predict_row_ns(p, m, 2, 0), 1024), 3000);
  // n = 8 (s = 2): all of it is CPU work, T = 6 us
  EXPECT_EQ(row_at(predict_row_ns(p, m, 8, 0), 1024), 6000);
}

TEST(CostModel, HandWorkedRowOfAForward) {
  const MachineModel m = hand_machine();
  Plan p;  // a block from another node, passed on to a same-package peer once it arrived
  p.recvs = {whole_recv(LinkClass::kNetwork)};
  p.sends = {whole_send(LinkClass::kSamePackage, 0)};
  // B = 1024, n = 1, the node receives 1 block:
  //   messages 2 * 1 / 2 + 0.5 * 1 / 2 = 1.25; same-package 1024 / 2048 = 0.5
  //   network max(1024 / 256, 1024 / 1024) = 4
  //   wait (store and forward from the network): 2 + 1024 / 256 = 6, which
  //   overlaps the network time (the same block's receive): max(4, 6) = 6
  //   T = 1.25 + 0.5 + 6 = 7.75 us
  EXPECT_EQ(predict_rank_us(rank_load(p, 1024), m, 1, 1024), 7.75);
  EXPECT_EQ(row_at(predict_row_ns(p, m, 1, 1), 1024), 7750);
}

TEST(CostModel, HandWorkedRowOfABundle) {
  const MachineModel m = hand_machine();
  Plan p;  // one network bundle of 2 pieces of this rank's own
  BundleSend b;
  b.link = LinkClass::kNetwork;
  b.pieces = {BlockId{0, 1, 0}, BlockId{0, 2, 0}};
  b.from = {PieceSource{}, PieceSource{}};
  p.bundle_sends = {b};
  const std::vector<std::int64_t> row = predict_row_ns(p, m, 1, 2);
  // B = 1024: payload 2048 <= prefix min(2 * 4096, 256K): 1 message of 2 * 8 + 2048 = 2064 bytes
  //   messages 2 * 1 / 2 = 1; network max(2064 / 256, 2 * 1024 / 1024) = 8.0625
  //   copies (packing) 2048 / 8192 = 0.25; T = 9.3125 us = 9312.5 ns
  EXPECT_EQ(row_at(row, 1024), 9312);
  // B = 8192: payload 16384 > 8192: 2 messages, 16 + 16384 = 16400 bytes
  //   messages 2 * 2 / 2 = 2; network max(16400 / 256, 16384 / 1024) = 64.0625
  //   copies 16384 / 8192 = 2; T = 68.0625 us
  EXPECT_EQ(row_at(row, 8192), 68062);
}

// Rank 0 of complete_2x2 on the hand machine, through the library's rule
// (the node's network blocks from its lists, ranks on the node from places).
TEST(CostModel, HandWorkedCallOfTheLinearPlan) {
  const CommGraph g = complete_2x2();
  const PlanInput input = make_plan_input(g, 0);
  const Plan p = build_linear_plan(input);
  // Ranks 0 and 1 are GCDs 0 and 1 of one MI250X: same package.
  for (const Send& s : p.sends)
    ASSERT_EQ(s.link, s.peer == 1 ? LinkClass::kSamePackage : LinkClass::kNetwork) << s.peer;
  ASSERT_EQ(ranks_on_node(input), 2);
  // B = 1024, n = 2 (s = 1):
  //   messages: same-package 0.5 * (1 + 1) / 2 = 0.5, network 2 * (2 + 2) / 2 = 4
  //   same-package bytes max(1024, 1024) / 2048 = 0.5
  //   network: own max(2048, 2048) / 256 = 8; node 0 sends 4 blocks (0->2, 0->3,
  //   1->2, 1->3) and receives 4: 4 * 1024 / 1024 = 4; max 8
  //   T = 4.5 + 0.5 + 8 = 13 us
  EXPECT_EQ(predict_call_us(input, p, Variant::kLinear, false, hand_machine(), 2, 1024), 13.0);
  EXPECT_EQ(row_at(predict_row_ns(input, p, Variant::kLinear, false, hand_machine(), 2), 1024), 13000);
}

TEST(CostModel, TimeGrowsWithBytesAndWithRanksPerCore) {
  const CommGraph g = complete_2x2();
  const Plan p = build_leader_plan(make_plan_input(g, 0));
  const MachineModel m = *builtin_machine("emulated");
  const PlanInput input = make_plan_input(g, 0);
  double previous = -1;
  for (const std::uint64_t b : model_sizes()) {
    const double t = predict_call_us(input, p, Variant::kLeader, false, m, 2, b);
    EXPECT_GT(t, previous) << b;
    previous = t;
  }
  const RankLoad l = rank_load(p, 4096);
  EXPECT_GT(predict_rank_us(l, m, 4, 0), predict_rank_us(l, m, 2, 0));
  // The node's network bytes through the NIC: more of them, more time.
  EXPECT_GT(predict_rank_us(l, m, 2, 1 << 20), predict_rank_us(l, m, 2, 4096));
}

// Processor sharing on a node's cores: a rank finishes once every rank has
// spent the lesser of its own work and this rank's.
TEST(CostModel, SharedCpuTakesTurnsWithTheNodesOtherWork) {
  const double owner_heavy[] = {4, 1, 1, 1};
  // A core per rank: its own work, whatever the others do.
  EXPECT_EQ(shared_cpu_us(4, owner_heavy, 4, 4), 4.0);
  EXPECT_EQ(shared_cpu_us(4, {}, 2, 4), 4.0);
  // 4 ranks on 2 cores, everyone unknown: own * ranks / cores = 4 * 4 / 2 = 8.
  EXPECT_EQ(shared_cpu_us(4, {}, 4, 2), 8.0);
  // Equal work: the same 8 (4 + 4 + 4 + 4 = 16 over 2 cores).
  const double equal[] = {4, 4, 4, 4};
  EXPECT_EQ(shared_cpu_us(4, equal, 4, 2), 8.0);
  // The owner: (4 + 1 + 1 + 1) / 2 = 3.5, but never less than its own 4.
  EXPECT_EQ(shared_cpu_us(4, owner_heavy, 4, 2), 4.0);
  // On one core: 7.
  EXPECT_EQ(shared_cpu_us(4, owner_heavy, 4, 1), 7.0);
  // A light rank beside it: (1 + 1 + 1 + 1) / 1 = 4.
  EXPECT_EQ(shared_cpu_us(1, owner_heavy, 4, 1), 4.0);
}

TEST(CostModel, RowsShareTheNodesCpuWork) {
  const MachineModel m = hand_machine();  // 4 cores
  Plan light;                             // one same-package block out
  light.sends = {whole_send(LinkClass::kSamePackage)};
  Plan heavy = light;  // and three local copies
  heavy.copies = {LocalCopy{}, LocalCopy{}, LocalCopy{}};
  const LoadShape l = load_shape(light);
  const LoadShape h = load_shape(heavy);
  // B = 1024: light 0.5 * 1 / 2 + 1024 / 2048 = 0.75 us; heavy 0.75 + 3 * 1024 / 8192 = 1.125 us.
  // 8 ranks on 4 cores, one heavy: the heavy rank (1.125 + 7 * 0.75) / 4 = 1.59375 us,
  // where taking every rank as heavy gives 1.125 * 2 = 2.25.
  std::vector<LoadShape> node(7, l);
  node.push_back(h);
  EXPECT_EQ(row_at(predict_row_ns(h, m, 8, 0, node), 1024), 1593);
  EXPECT_EQ(row_at(predict_row_ns(h, m, 8, 0), 1024), 2250);
  // A node of equal ranks gives what the stretch by ranks / cores gives, at every size.
  EXPECT_EQ(predict_row_ns(l, m, 8, 3, std::vector<LoadShape>(8, l)), predict_row_ns(l, m, 8, 3));
  // With a core each, the others' work does not count.
  EXPECT_EQ(predict_row_ns(h, m, 4, 3, std::vector<LoadShape>{h, l, l, l}), predict_row_ns(h, m, 4, 3));
}

// 3 Frontier nodes of 4 ranks, random edges (density 0.4), some PROC_NULL.
CommGraph random_3x4() {
  CommGraph g = make_uniform_comm(Model::kFrontier, 3, 4);
  Rng rng(5);
  set_edges(g, erdos_renyi_edges(g.size(), 0.4, rng), &rng, 0.1);
  return g;
}

// A rank plans its node's other ranks from its own input (cost terms where
// ranks share cores): what it derives is what that rank holds.
TEST(CostModel, NodeRankInputIsThatRanksOwn) {
  const CommGraph g = random_3x4();
  for (int r = 0; r < g.size(); ++r) {
    const PlanInput input = make_plan_input(g, r);
    ASSERT_EQ(input.node_in.size(), 4U);
    for (std::size_t i = 0; i < input.node_in.size(); ++i)
      EXPECT_EQ(node_rank_input(input, i), make_plan_input(g, input.node_in[i].first)) << r << " " << i;
  }
}

// The library counts a node's network blocks in one pass, two ways
// (src/state/cost_tables.cpp): per edge for linear and both alltoalls, per
// (source, remote node) for leader and aggregated. Against a count by sets.
TEST(CostModel, NodeNetworkBlockCountsMatchACountBySets) {
  const CommGraph g = random_3x4();
  for (int r = 0; r < g.size(); ++r) {
    const PlanInput input = make_plan_input(g, r);
    const auto node = [&input](int rank) { return input.places[static_cast<std::size_t>(rank)].node; };
    const int mine = node(r);
    std::uint64_t out_edges = 0;
    std::uint64_t in_edges = 0;
    std::set<std::pair<int, int>> out_sources;  // (source here, remote node)
    std::set<int> in_sources;                   // remote sources
    for (const auto& [s, list] : input.node_out) {
      for (const int d : list) {
        if (d == kNoRank || node(d) == mine) continue;
        ++out_edges;
        out_sources.insert({s, node(d)});
      }
    }
    for (const auto& [d, list] : input.node_in) {
      for (const int s : list) {
        if (s == kNoRank || node(s) == mine) continue;
        ++in_edges;
        in_sources.insert(s);
      }
    }
    const NetworkBlocks counts = node_network_block_counts(input);
    EXPECT_EQ(counts.per_edge, std::max(out_edges, in_edges));
    EXPECT_EQ(counts.per_source, std::max<std::uint64_t>(out_sources.size(), in_sources.size()));
    EXPECT_EQ(node_network_blocks(input, Variant::kLinear, false), counts.per_edge);
    EXPECT_EQ(node_network_blocks(input, Variant::kLeader, false), counts.per_source);
    EXPECT_EQ(node_network_blocks(input, Variant::kAggregated, false), counts.per_source);
    EXPECT_EQ(node_network_blocks(input, Variant::kLinear, true), counts.per_edge);
    EXPECT_EQ(node_network_blocks(input, Variant::kAggregated, true), counts.per_edge);
  }
}

// A cost row depends on a plan only through its load shape, which is what
// lets the library evaluate a row once for plans of one shape (the linear
// allgather and alltoall plans: the same messages and copies). Two plans
// that differ in everything but their shape must get equal rows: the
// leader plan against a copy with its fragments in reverse order, other
// peers and tags, and the linear allgather plan against its alltoall twin.
TEST(CostModel, RowsFollowTheLoadShape) {
  const MachineModel m = *builtin_machine("frontier");
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 4);
  Rng rng(11);
  set_edges(g, erdos_renyi_edges(g.size(), 0.5, rng), &rng, 0.1);
  for (int r = 0; r < g.size(); ++r) {
    const PlanInput input = make_plan_input(g, r);
    const Plan linear = build_linear_plan(input);
    const Plan leader = build_leader_plan(input);
    Plan other = leader;
    std::reverse(other.sends.begin(), other.sends.end());
    std::reverse(other.recvs.begin(), other.recvs.end());
    const int recvs = static_cast<int>(other.recvs.size());
    for (Send& s : other.sends) {
      if (s.after_recv >= 0) s.after_recv = recvs - 1 - s.after_recv;  // the same receive, at its new index
      s.peer += 100;
      s.tag += 7;
    }
    for (Recv& v : other.recvs) v.peer += 100;
    ASSERT_FALSE(other == leader) << "rank " << r;
    EXPECT_EQ(predict_row_ns(other, m, 4, 3), predict_row_ns(leader, m, 4, 3)) << "rank " << r;
    const Plan linear_alltoall = build_linear_alltoall_plan(input);
    EXPECT_EQ(load_shape(linear), load_shape(linear_alltoall)) << "rank " << r;
    EXPECT_EQ(predict_row_ns(linear, m, 4, 3), predict_row_ns(linear_alltoall, m, 4, 3)) << "rank " << r;
    const bool forwards =
        std::any_of(leader.sends.begin(), leader.sends.end(), [](const Send& s) { return s.after_recv >= 0; });
    if (forwards) {
      EXPECT_FALSE(load_shape(leader) == load_shape(linear)) << "rank " << r;
    }
  }
}

TEST(CostModel, NodeNetworkBytesCountEdgesOrDistinctSourcesPerRemoteNode) {
  // Node 0 = {0, 1}, node 1 = {2, 3}; 0 -> 2, 0 -> 3, 0 -> 3 (duplicate), 1 -> 2.
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 2);
  set_edges(g, {{0, 2}, {0, 3}, {0, 3}, {1, 2}});
  const PlanInput a = make_plan_input(g, 0);
  const PlanInput b = make_plan_input(g, 2);
  EXPECT_EQ(node_network_bytes(a, Variant::kLinear, false, 10), 40u);      // every edge
  EXPECT_EQ(node_network_bytes(a, Variant::kLeader, false, 10), 20u);      // sources 0 and 1, once each
  EXPECT_EQ(node_network_bytes(a, Variant::kAggregated, false, 10), 20u);  // likewise
  EXPECT_EQ(node_network_bytes(a, Variant::kAggregated, true, 10), 40u);   // alltoall: a block per edge
  EXPECT_EQ(node_network_bytes(b, Variant::kLeader, false, 10), 20u);      // node 1 receives the same
  EXPECT_EQ(ranks_on_node(a), 2);
}

// The row graph creation computes in one pass (each size's load from one
// walk of the plan's shape) equals the per-size rule (rank_load of the plan)
// at every model size, for every variant of both collectives, on graphs with
// duplicate and self edges and MPI_PROC_NULL, of every node model (leader
// plans split blocks into shares over several devices), with 2 to 5 nodes.
void expect_rows_equal_the_per_size_rule(const CommGraph& g, const MachineModel& m, int ranks_on_node) {
  for (int r = 0; r < g.size(); ++r) {
    const PlanInput input = make_plan_input(g, r);
    const std::pair<Variant, Plan> gathers[] = {{Variant::kLinear, build_linear_plan(input)},
                                                {Variant::kLeader, build_leader_plan(input)},
                                                {Variant::kAggregated, build_aggregated_plan(input)}};
    const std::pair<Variant, Plan> alltoalls[] = {{Variant::kLinear, build_linear_alltoall_plan(input)},
                                                  {Variant::kAggregated, build_aggregated_alltoall_plan(input)}};
    for (const bool alltoall : {false, true}) {
      for (const auto& [v, plan] : alltoall ? std::span<const std::pair<Variant, Plan>>(alltoalls)
                                            : std::span<const std::pair<Variant, Plan>>(gathers)) {
        const std::vector<std::int64_t> row = predict_row_ns(input, plan, v, alltoall, m, ranks_on_node);
        ASSERT_EQ(row.size(), kModelSizeCount);
        for (std::size_t i = 0; i < kModelSizeCount; ++i) {
          const double us = predict_call_us(input, plan, v, alltoall, m, ranks_on_node, model_sizes()[i]);
          ASSERT_EQ(row[i], static_cast<std::int64_t>(us * 1000.0)) << r << " " << variant_name(v) << " " << i;
        }
      }
    }
  }
}

TEST(CostModel, RowsEqualThePerSizeRule) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 3, 4);
  Rng rng(11);
  std::vector<Edge> edges = erdos_renyi_edges(g.size(), 0.4, rng);
  edges.push_back({1, 6});
  edges.push_back({1, 6});  // a duplicate
  edges.push_back({5, 5});  // a self edge
  set_edges(g, edges, &rng, 0.1);
  expect_rows_equal_the_per_size_rule(g, *builtin_machine("frontier"), 4);
}

TEST(CostModel, RowsEqualThePerSizeRuleOnRandomGraphs) {
  Rng rng(29);
  for (const Model model : kAllModels) {
    for (const int nodes : {2, 3, 5}) {
      for (const double density : {0.15, 0.5, 1.0}) {
        const int per_node = 2 + static_cast<int>(rng() % 7);  // 2 to 8
        CommGraph g = make_uniform_comm(model, nodes, per_node);
        std::vector<Edge> edges = erdos_renyi_edges(g.size(), density, rng);
        edges.push_back({0, g.size() - 1});
        edges.push_back({0, g.size() - 1});  // a duplicate
        edges.push_back({1, 1});             // a self edge
        set_edges(g, edges, &rng, 0.05);
        for (const std::string& machine : builtin_machine_names())
          expect_rows_equal_the_per_size_rule(g, *builtin_machine(machine), per_node);
      }
    }
  }
}

TEST(CostModel, OccurrenceNumbersCountEarlierEqualEntries) {
  EXPECT_EQ(occurrence_numbers({}), std::vector<int>{});
  EXPECT_EQ(occurrence_numbers({7, 3, 7, -1, 7, 3, -1}), (std::vector<int>{0, 0, 1, 0, 2, 1, 1}));
  EXPECT_EQ(occurrence_numbers({4, 4, 4, 4}), (std::vector<int>{0, 1, 2, 3}));
}

CostTable two_rows() {
  CostTable t;
  t.variants = {Variant::kLinear, Variant::kLeader};
  std::vector<std::uint64_t> linear;
  std::vector<std::uint64_t> leader;
  for (const std::uint64_t b : model_sizes()) {
    linear.push_back(1000 + 4 * b);  // cheap start, steep
    leader.push_back(5000 + b);      // dear start, flat: equal at 4000/3 B
  }
  t.time_ns = {linear, leader};
  return t;
}

TEST(CostModel, TableInterpolatesExactlyAndPicksTheLeast) {
  const CostTable t = two_rows();
  EXPECT_EQ(t.at(Variant::kLinear, 0), 1000u);
  EXPECT_EQ(t.at(Variant::kLinear, 1024), 1000u + 4096u);
  EXPECT_EQ(t.at(Variant::kLinear, 640), 1000u + 2560u);  // between 512 and 1024: linear
  EXPECT_EQ(model_sizes().size(), kModelSizeCount);
  EXPECT_EQ(t.at(Variant::kLeader, 1u << 30), 5000u + (1u << 30));  // beyond the last size: extended
  EXPECT_EQ(t.at(Variant::kAggregated, 10), ~std::uint64_t{0});     // no such row
  EXPECT_EQ(t.cheapest(1000), Variant::kLinear);
  EXPECT_EQ(t.cheapest(1400), Variant::kLeader);
  EXPECT_TRUE(t.ever_cheapest(Variant::kLinear));
  EXPECT_TRUE(t.ever_cheapest(Variant::kLeader));
  CostTable tie = t;
  tie.time_ns[1] = tie.time_ns[0];
  EXPECT_EQ(tie.cheapest(5000), Variant::kLinear);  // ties: the earlier row
  EXPECT_FALSE(tie.ever_cheapest(Variant::kLeader));
}

// cheapest() evaluates every row in one model-size segment; at() looks a
// row up on its own: the first row of least at() must be what cheapest says,
// at model sizes, between them, beyond them, with ties and rows in any order.
TEST(CostModel, CheapestIsTheFirstRowOfLeastTime) {
  Rng rng(29);
  for (int round = 0; round < 200; ++round) {
    CostTable t;
    t.variants = {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
    std::shuffle(t.variants.begin(), t.variants.end(), rng);
    t.variants.resize(static_cast<std::size_t>(1 + round % 3));
    for (std::size_t r = 0; r < t.variants.size(); ++r) {
      std::vector<std::uint64_t> row;
      for (std::size_t i = 0; i < kModelSizeCount; ++i)
        row.push_back(rng() % 4 == 0 ? 5000 : 1000 + rng() % 100000);  // equal values now and then
      t.time_ns.push_back(row);
    }
    for (int probe = 0; probe < 50; ++probe) {
      const std::uint64_t bytes = probe < 22 ? model_sizes()[static_cast<std::size_t>(probe)] + probe % 3
                                             : rng() % (std::uint64_t{1} << (probe % 40));
      Variant best = t.variants.front();
      for (const Variant v : t.variants)
        if (t.at(v, bytes) < t.at(best, bytes)) best = v;
      EXPECT_EQ(t.cheapest(bytes), best) << "round " << round << ", " << bytes << " B";
      // Without one row: the first of least time among the others, or the
      // only row.
      const Variant skipped = t.variants[static_cast<std::size_t>(probe) % t.variants.size()];
      Variant best_other = t.variants.front();
      bool found = false;
      for (const Variant v : t.variants)
        if (v != skipped && (!found || t.at(v, bytes) < t.at(best_other, bytes))) {
          best_other = v;
          found = true;
        }
      EXPECT_EQ(t.cheapest_except(skipped, bytes), best_other) << "round " << round << ", " << bytes << " B";
    }
  }
}

// A nonblocking call progressed only inside MPI calls: linear below the
// block where linear travels by rendezvous too; from there the model's
// cheapest other than aggregated.
TEST(CostModel, NonblockingCallsForwardOnlyBlocksThatNeedBothEndsInTheMpi) {
  CostTable t;
  t.variants = {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
  t.time_ns = {std::vector<std::uint64_t>(kModelSizeCount, 1000), std::vector<std::uint64_t>(kModelSizeCount, 500),
               std::vector<std::uint64_t>(kModelSizeCount, 100)};
  EXPECT_EQ(t.cheapest(kForwardedNonblockingBlock), Variant::kAggregated);
  EXPECT_EQ(nonblocking_variant(t, kForwardedNonblockingBlock - 1), Variant::kLinear);
  EXPECT_EQ(nonblocking_variant(t, 1024), Variant::kLinear);
  EXPECT_EQ(nonblocking_variant(t, kForwardedNonblockingBlock), Variant::kLeader);
  EXPECT_EQ(nonblocking_variant(t, 4u << 20), Variant::kLeader);
  t.time_ns[1] = std::vector<std::uint64_t>(kModelSizeCount, 2000);  // leader dearer: linear
  EXPECT_EQ(nonblocking_variant(t, 4u << 20), Variant::kLinear);
  t.drop(Variant::kLeader);
  t.drop(Variant::kLinear);  // aggregated alone: still never bundles
  EXPECT_EQ(nonblocking_variant(t, 4u << 20), Variant::kLinear);
  EXPECT_EQ(nonblocking_variant(CostTable{}, 4u << 20), Variant::kLinear);  // no table
}

TEST(CostModel, AggregatedIsOfferedOnlyWhereItWinsClearly) {
  CostTable t;
  t.variants = {Variant::kLinear, Variant::kAggregated};
  t.time_ns = {std::vector<std::uint64_t>(kModelSizeCount, 1000), std::vector<std::uint64_t>(kModelSizeCount, 2000)};
  t.time_ns[1][3] = 850;  // cheapest at one size, by 15%: its bundles would cost more elsewhere
  EXPECT_TRUE(t.ever_cheapest(Variant::kAggregated));
  EXPECT_EQ(t.offered().variants, (std::vector<Variant>{Variant::kLinear}));
  t.time_ns[1][3] = 750;  // by 25%
  EXPECT_EQ(t.offered().variants, t.variants);
  EXPECT_EQ(t.offered().cheapest(model_sizes()[3]), Variant::kAggregated);
}

TEST(CostModel, ForwardingIsTakenOnlyWhereItBeatsLinearClearly) {
  CostTable t;
  t.variants = {Variant::kLinear, Variant::kLeader};
  t.time_ns = {std::vector<std::uint64_t>(kModelSizeCount, 1000), std::vector<std::uint64_t>(kModelSizeCount, 1500)};
  t.time_ns[1][3] = 850;  // 15% faster: within the model's uncertainty about forwarding
  t.time_ns[1][4] = 790;  // 21% faster
  EXPECT_EQ(t.cheapest(model_sizes()[3]), Variant::kLeader);  // the model itself
  const CostTable offered = t.offered();
  EXPECT_EQ(offered.cheapest(model_sizes()[3]), Variant::kLinear);
  EXPECT_EQ(offered.cheapest(model_sizes()[4]), Variant::kLeader);
  EXPECT_EQ(offered.time_ns[0], t.time_ns[0]);  // linear's row unchanged
  EXPECT_EQ(offered.time_ns[1][4], 790u);       // a clear win unchanged
  EXPECT_EQ(offered.time_ns[1][3], 1001u);      // a narrow one just above linear
  EXPECT_EQ(offered.time_ns[1][0], 1500u);      // a loss unchanged
  // Without a linear row nothing is lifted.
  CostTable no_linear = t;
  no_linear.drop(Variant::kLinear);
  EXPECT_EQ(no_linear.offered().time_ns, no_linear.time_ns);
}

// The whole communicator's time per variant: max over ranks.
std::uint64_t predicted_ns(const CommGraph& g, Planner planner, Variant v, const MachineModel& m, std::uint64_t b) {
  double worst = 0;
  for (int r = 0; r < g.size(); ++r) {
    const PlanInput input = make_plan_input(g, r);
    worst = std::max(worst, predict_call_us(input, planner(input), v, false, m, 8, b));
  }
  return static_cast<std::uint64_t>(worst * 1000);
}

CostTable rsg_table(const MachineModel& m) {
  CommGraph g = make_uniform_comm(Model::kFrontier, 2, 8);
  Rng rng(7);
  set_edges(g, erdos_renyi_edges(g.size(), 0.6, rng));
  CostTable t;
  t.variants = {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
  t.time_ns.resize(3);
  for (const std::uint64_t b : model_sizes()) {
    t.time_ns[0].push_back(predicted_ns(g, build_linear_plan, Variant::kLinear, m, b));
    t.time_ns[1].push_back(predicted_ns(g, build_leader_plan, Variant::kLeader, m, b));
    t.time_ns[2].push_back(predicted_ns(g, build_aggregated_plan, Variant::kAggregated, m, b));
  }
  return t;
}

// A slow network beside fast nodes (the emulated cluster): few network
// messages win small blocks, few network bytes win large ones.
TEST(CostModel, SlowNetworkAggregatesSmallBlocksAndSendsLargeOnesByLeaders) {
  const CostTable t = rsg_table(*builtin_machine("emulated"));
  EXPECT_EQ(t.cheapest(1024), Variant::kAggregated);
  EXPECT_EQ(t.cheapest(4 << 20), Variant::kLeader);
}

// Host memory on Frontier moves about as fast as the network: a leader's
// extra intra-node copies cost more than the network bytes they save, and
// only the message count is worth cutting.
TEST(CostModel, FastNetworkKeepsLargeBlocksLinear) {
  const CostTable t = rsg_table(*builtin_machine("frontier"));
  EXPECT_EQ(t.cheapest(64), Variant::kAggregated);
  EXPECT_EQ(t.cheapest(4 << 20), Variant::kLinear);
  EXPECT_FALSE(t.ever_cheapest(Variant::kLeader));
}

}  // namespace
}  // namespace nbrcoll::algos::testing
