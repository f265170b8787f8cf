// nbrcoll-model's graphs, predictions and output.
#include "bench/model/model_predict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "algos/testing/graphs.h"
#include "bench/model/model_graph.h"
#include "bench/model/model_report.h"

namespace nbrmodel {
namespace {

namespace algos = nbrcoll::algos;
namespace testing = nbrcoll::algos::testing;

// Rows [0,2) rank 0, [2,4) rank 1, [4,6) rank 2 (6 x 6 over 3 ranks).
nbrbench::CsrMatrix six_by_six() {
  std::vector<nbrbench::Triplet> t = {{0, 0, 1}, {0, 5, 1}, {1, 2, 1}, {1, 3, 1}, {2, 2, 1},
                                      {3, 3, 1}, {4, 0, 1}, {4, 1, 1}, {5, 4, 1}};
  return nbrbench::to_csr(6, 6, t);
}

TEST(ModelGraph, MatrixRowsInBlocksReceiveFromColumnOwners) {
  const auto a = six_by_six();
  // Rank 0's rows touch columns 0, 5, 2, 3: owners 0, 2, 1, 1 -> sources 1, 2.
  // Rank 1's touch 2, 3 (its own): none. Rank 2's touch 0, 1, 4: owners 0, 0, 2 -> 0.
  EXPECT_EQ(matrix_edges(a, 3), (std::vector<Edge>{{1, 0}, {2, 0}, {0, 2}}));
  // More ranks than rows: ranks without rows receive nothing, own no columns.
  const auto e8 = matrix_edges(a, 8);
  for (const auto& [s, d] : e8) EXPECT_NE(s, d);
  EXPECT_EQ(matrix_edges(a, 1), std::vector<Edge>{});
}

TEST(ModelGraph, NodesOfTheModelAndThePatternsEdges) {
  ModelOptions o;
  o.pattern = "moore";
  o.ranks_per_node = 4;
  const algos::CommGraph g = model_graph(o, 4, nullptr);
  ASSERT_EQ(g.size(), 16);
  EXPECT_EQ(g.nodes.size(), 4u);
  EXPECT_EQ(g.places[5].node, 1);
  EXPECT_EQ(g.places[5].device, 1);
  EXPECT_TRUE(algos::validate_graph(g).empty());
  const GraphSummary s = summarize_graph(g);
  EXPECT_EQ(s.edges, 16u * 8u);
  EXPECT_DOUBLE_EQ(expected_edges(o, 16, nullptr), 128);
  EXPECT_GT(s.inter_node_edges, 0u);
  EXPECT_LT(s.inter_node_edges, s.edges);

  o.pattern = "rsg";
  o.degree = 6;
  const algos::CommGraph r = model_graph(o, 16, nullptr);  // 64 ranks, density 6/63
  const double edges = static_cast<double>(summarize_graph(r).edges);
  EXPECT_NEAR(edges, expected_edges(o, 64, nullptr), 0.2 * 64 * 6);
  EXPECT_TRUE(algos::validate_graph(r).empty());

  o.pattern = "matrix";
  const auto a = six_by_six();
  o.ranks_per_node = 1;
  EXPECT_EQ(summarize_graph(model_graph(o, 3, &a)).edges, 3u);
  EXPECT_DOUBLE_EQ(expected_edges(o, 3, &a), 3);
}

// 2 nodes x 2 ranks of Frontier: a ring with a chord.
algos::CommGraph hand_case() {
  algos::CommGraph g = testing::make_uniform_comm(testing::Model::kFrontier, 2, 2);
  testing::set_edges(g, {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}, {2, 0}});
  return g;
}

// A machine whose numbers are powers of two, so that the times below are
// exact: alpha (us) 0.25 / 0.5 / 0.75 / 1 / 2 and rate (bytes/us) 4096 /
// 2048 / 1024 / 512 / 256 for same-device / same-package / linked /
// multi-hop / network; NIC 1024 bytes/us, copies 8192 bytes/us, 4 cores.
algos::MachineModel hand_machine() {
  algos::MachineModel m;
  m.name = "hand";
  m.link = {algos::LinkCost{0.25, 4096}, algos::LinkCost{0.5, 2048}, algos::LinkCost{0.75, 1024},
            algos::LinkCost{1.0, 512}, algos::LinkCost{2.0, 256}};
  m.nic_bytes_per_us = 1024;
  m.copy_bytes_per_us = 8192;
  m.cores = 4;
  return m;
}

// The linear variant's numbers worked out by hand (algos/README.md, "Cost
// model"). Nodes {0, 1} and {2, 3}; 0-1 and 2-3 are the two GCDs of one
// package. Each node sends 2 blocks to the other (0->2, 1->2; 2->0, 3->0) and
// receives 2; n = 2 ranks on a node, s = max(1, 2 / 4) = 1.
//   rank 0 (and 2): sends 1 same-package, 1 network; receives 2 network
//     messages 0.5 * 1 / 2 + 2 * (1 + 2) / 2 = 3.25; same-package B / 2048
//     network max(2B / 256, node 2B / 1024) = 2B / 256
//   rank 1 (and 3): sends 1 network, receives 1 same-package
//     messages 2 / 2 + 0.5 / 2 = 1.25; same-package B / 2048; network B / 256
// B = 1024: rank 0 3.25 + 0.5 + 8 = 11.75 (rank 1 1.25 + 0.5 + 4 = 5.75)
// B = 3000: rank 0 3.25 + 1.46484375 + 23.4375 = 28.15234375
// B = 4 MiB: rank 0 3.25 + 2048 + 32768 = 34819.25
TEST(ModelPredict, LinearNumbersWorkedOutByHand) {
  const Prediction p = predict(hand_case(), false, hand_machine(), 2, {1024, 3000, 4u << 20});
  const VariantPrediction& linear = row_of(p, Variant::kLinear);
  EXPECT_EQ(linear.time_us, (std::vector<double>{11.75, 28.15234375, 34819.25}));
  const auto at_1k = std::find(algos::model_sizes().begin(), algos::model_sizes().end(), 1024u);
  ASSERT_NE(at_1k, algos::model_sizes().end());
  EXPECT_EQ(linear.model_ns[static_cast<std::size_t>(at_1k - algos::model_sizes().begin())], 11750u);
  // One network message per inter-node edge (1->2, 3->0, 0->2, 2->0).
  EXPECT_EQ(linear.net_messages[0], 4u);
  EXPECT_EQ(linear.net_bytes[0], 4u * 1024u);
}

// The tool's part for every variant: the maximum over ranks of the
// library's per-rank rule, with each rank's own node counts (that rule is
// pinned by hand-worked numbers in tests/unit/algos/cost_model_test.cpp).
TEST(ModelPredict, TheNumberIsTheMaximumOverRanksOfPredictRankUs) {
  const algos::CommGraph g = hand_case();
  const algos::MachineModel m = *algos::builtin_machine("frontier");
  const std::vector<std::uint64_t> sizes = {1024, 3000, 4u << 20};
  const Prediction p = predict(g, false, m, 2, sizes);
  ASSERT_EQ(p.variants.size(), 3u);
  const algos::Planner planners[] = {algos::build_linear_plan, algos::build_leader_plan, algos::build_aggregated_plan};
  const Variant variants[] = {Variant::kLinear, Variant::kLeader, Variant::kAggregated};
  const std::vector<algos::PlanInput> inputs = algos::make_plan_inputs(g);
  for (std::size_t v = 0; v < 3; ++v) {
    const std::vector<algos::Plan> plans = algos::build_plans(g, planners[v]);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      double worst = 0;
      std::uint64_t net = 0;
      for (std::size_t r = 0; r < plans.size(); ++r) {
        const algos::RankLoad load = algos::rank_load(plans[r], sizes[i]);
        const std::uint64_t node_bytes = algos::node_network_bytes(inputs[r], variants[v], false, sizes[i]);
        worst = std::max(worst, algos::predict_rank_us(load, m, 2, node_bytes));
        net += load.sent_messages[static_cast<std::size_t>(algos::LinkClass::kNetwork)];
      }
      EXPECT_EQ(p.variants[v].time_us[i], worst) << v << " " << i;
      EXPECT_EQ(p.variants[v].net_messages[i], net);
    }
    for (std::size_t k = 0; k < algos::model_sizes().size(); ++k) {
      std::uint64_t worst = 0;
      for (std::size_t r = 0; r < plans.size(); ++r)
        worst = std::max(worst, to_ns(algos::predict_call_us(inputs[r], plans[r], variants[v], false, m, 2,
                                                             algos::model_sizes()[k])));
      EXPECT_EQ(p.variants[v].model_ns[k], worst);
    }
  }
  // Alltoall weighs linear and aggregated only.
  EXPECT_EQ(predict(g, true, m, 2, sizes).variants.size(), 2u);
}

TEST(ModelPredict, ThreadsChangeNothing) {
  // Enough ranks for several workers: the same numbers as one rank at a time.
  ModelOptions o;
  o.pattern = "rsg";
  o.degree = 8;
  const algos::CommGraph g = model_graph(o, 40, nullptr);  // 320 ranks
  const algos::MachineModel m = *algos::builtin_machine("frontier");
  const Prediction p = predict(g, false, m, 8, {65536});
  const std::vector<algos::Plan> plans = algos::build_plans(g, algos::build_leader_plan);
  double worst = 0;
  for (int r = 0; r < g.size(); ++r)
    worst = std::max(worst, algos::predict_call_us(algos::make_plan_input(g, r), plans[static_cast<std::size_t>(r)],
                                                   Variant::kLeader, false, m, 8, 65536));
  EXPECT_EQ(row_of(p, Variant::kLeader).time_us[0], worst);
}

VariantPrediction row(Variant v, std::vector<std::uint64_t> ns) {
  VariantPrediction r;
  r.variant = v;
  r.model_ns = std::move(ns);
  return r;
}

TEST(ModelPredict, AggregatedNeverCheapestIsNotOffered) {
  const std::size_t n = algos::model_sizes().size();
  std::vector<VariantPrediction> rows = {row(Variant::kLinear, std::vector<std::uint64_t>(n, 10)),
                                         row(Variant::kLeader, std::vector<std::uint64_t>(n, 20)),
                                         row(Variant::kAggregated, std::vector<std::uint64_t>(n, 30))};
  EXPECT_EQ(offered_table(rows).variants, (std::vector<Variant>{Variant::kLinear, Variant::kLeader}));
  rows[2].model_ns.back() = 1;
  const algos::CostTable t = offered_table(rows);
  EXPECT_EQ(t.variants.size(), 3u);
  EXPECT_EQ(choice_summary(t), "linear, aggregated from 64M");
}

Prediction two_sizes() {
  const algos::CommGraph g = hand_case();
  return predict(g, false, *algos::builtin_machine("frontier"), 2, {1024, 4u << 20});
}

TEST(ModelReport, TableHasARowPerVariantAndAuto) {
  ModelOptions o;
  o.pattern = "moore";
  o.ranks_per_node = 2;
  Block b{2, summarize_graph(hand_case()), two_sizes()};
  std::ostringstream out;
  print_heading(out, o, "frontier (built-in)");
  print_block(out, o, b);
  const std::string text = out.str();
  EXPECT_NE(text.find("# node frontier, machine frontier (built-in), 2 ranks per node, pattern moore d=2;r=1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("## 2 nodes x 2 ranks = 4 ranks, 6 edges (1.5 per rank, 67% inter-node)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# auto: "), std::string::npos);
  for (const char* v : {"linear", "leader", "aggregated", "auto="}) {
    std::size_t count = 0;
    for (std::size_t at = text.find(std::string("  ") + v); at != std::string::npos;
         at = text.find(std::string("  ") + v, at + 1))
      ++count;
    EXPECT_GE(count, 2u) << v << "\n" << text;
  }
  EXPECT_NE(text.find("  1K       linear"), std::string::npos) << text;
  EXPECT_NE(text.find("1.00x"), std::string::npos);
}

TEST(ModelReport, CsvRowsAndColumns) {
  ModelOptions o;
  o.pattern = "rsg";
  o.density = 0.5;
  o.ranks_per_node = 2;
  Block b{2, summarize_graph(hand_case()), two_sizes()};
  std::ostringstream out;
  out << kModelCsvHeader << '\n';
  write_model_csv(out, o, "frontier", b);
  std::istringstream in(out.str());
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 1u + 2u * 4u);  // header, 2 sizes x (3 variants + auto)
  for (const std::string& l : lines) EXPECT_EQ(std::count(l.begin(), l.end(), ','), 16) << l;
  EXPECT_EQ(
      lines[1].rfind("\"frontier\",\"frontier\",\"rsg\",\"density=0.5;seed=1\",allgather,2,2,4,6,1024,linear,", 0), 0u)
      << lines[1];
  EXPECT_NE(lines[1].find(",1.0000,4,4096,"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[4].find(",auto,") != std::string::npos, true) << lines[4];
}

}  // namespace
}  // namespace nbrmodel
