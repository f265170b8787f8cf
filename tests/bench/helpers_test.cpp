#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <vector>

#include "bench/core/compute.h"
#include "bench/core/fill.h"
#include "bench/core/options.h"
#include "bench/core/report.h"
#include "bench/core/round_order.h"
#include "bench/core/sizes.h"
#include "bench/core/stats.h"

using namespace nbrbench;

TEST(Sizes, ParseUnitsRangesAndLists) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("1K"), 1024u);
  EXPECT_EQ(parse_size("64M"), 64u << 20);
  EXPECT_EQ(parse_size("1G"), 1u << 30);
  EXPECT_EQ(parse_size("2KiB"), 2048u);
  EXPECT_EQ(parse_sizes("1K:8K"), (std::vector<std::uint64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(parse_sizes("4K,1,1K:2K,4K"), (std::vector<std::uint64_t>{1, 1024, 2048, 4096}));
  EXPECT_EQ(parse_sizes("1K:64M").size(), 17u);
  EXPECT_THROW(parse_size("12X"), std::invalid_argument);
  EXPECT_THROW(parse_size("K"), std::invalid_argument);
  EXPECT_THROW(parse_sizes("8K:1K"), std::invalid_argument);
  EXPECT_THROW(parse_sizes("1K,,2K"), std::invalid_argument);
  EXPECT_EQ(format_size(1024), "1K");
  EXPECT_EQ(format_size(3000), "3000");
  EXPECT_EQ(format_size(4u << 20), "4M");
}

TEST(Stats, MedianMinMax) {
  const Summary odd = summarize({5, 1, 3});
  EXPECT_DOUBLE_EQ(odd.median, 3);
  EXPECT_DOUBLE_EQ(odd.min, 1);
  EXPECT_DOUBLE_EQ(odd.max, 5);
  EXPECT_DOUBLE_EQ(summarize({4, 1, 2, 3}).median, 2.5);
  EXPECT_DOUBLE_EQ(summarize({}).median, 0);
}

TEST(Stats, MedianRatioPairsRoundsAndSkipsEmptyOnes) {
  // Rounds 0 and 1 are slow for both, round 2 for the algorithm alone: the
  // pairs give 2 in four rounds of five, the two medians 1 against 5.
  const std::vector<double> native{10, 10, 1, 1, 1};
  const std::vector<double> algo{5, 5, 5, 0.5, 0.5};
  EXPECT_DOUBLE_EQ(summarize(native).median / summarize(algo).median, 0.2);
  EXPECT_DOUBLE_EQ(*median_ratio(native, algo), 2.0);
  EXPECT_DOUBLE_EQ(*median_ratio({6, 3, 10}, {3, 1, 10}), 2.0);  // ratios 2, 3, 1
  EXPECT_DOUBLE_EQ(*median_ratio({6, 0, 4}, {3, 5, 0}), 2.0);    // only round 0 counts
  EXPECT_FALSE(median_ratio({0, 1}, {1, 0}).has_value());
  EXPECT_FALSE(median_ratio({}, {}).has_value());
}

TEST(Fill, BlocksCheckByteByByteAndDifferPerSourceAndCall) {
  for (std::size_t n : {0u, 1u, 7u, 8u, 9u, 1000u}) {
    std::vector<std::uint8_t> b(n);
    fill_block(b.data(), n, 3, 11);
    EXPECT_EQ(first_mismatch(b.data(), n, 3, 11), n);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(b[i], expected_byte(3, i, 11));
    if (n == 0) continue;
    b[n / 2] ^= 1;
    EXPECT_EQ(first_mismatch(b.data(), n, 3, 11), n / 2);
  }
  std::vector<std::uint8_t> a(64), b(64), c(64);
  fill_block(a.data(), 64, 1, 1);
  fill_block(b.data(), 64, 2, 1);
  fill_block(c.data(), 64, 1, 2);
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_LT(first_mismatch(a.data(), 64, 1, 2), 64u);
  EXPECT_NE(b_value(1, 2, 3), b_value(1, 2, 4));
}

TEST(Options, PatternsAndErrors) {
  const Options o = parse_options({"--pattern", "rsg", "--density", "0.4", "--sizes", "1K,4K", "--no-validate"});
  EXPECT_EQ(o.pattern, "rsg");
  EXPECT_DOUBLE_EQ(o.density, 0.4);
  EXPECT_FALSE(o.validate);
  EXPECT_EQ(o.sizes.size(), 2u);
  EXPECT_EQ(o.algos, (std::vector<std::string>{"native", "linear", "leader"}));
  EXPECT_EQ(params_string(o), "density=0.4;seed=1");
  EXPECT_EQ(parse_options({"--pattern", "moore"}).sizes.size(), 17u);  // default 1K:64M
  EXPECT_EQ(params_string(parse_options({"--pattern", "moore", "--dims", "3", "--radius", "2"})), "d=3;r=2");
  EXPECT_EQ(parse_options({"--pattern", "spmm", "--matrix", "gen:ccc:6", "--cols", "64,8"}).cols,
            (std::vector<int>{8, 64}));
  EXPECT_THROW(parse_options({}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "spmm"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "file"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--density", "2"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--algos", "native,fast"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--iters"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--bogus"}), std::invalid_argument);
}

TEST(Options, ItersBelowASizeTakeTheirOwnCount) {
  const Options o = parse_options({"--pattern", "rsg", "--iters", "3", "--iters-below", "64K:15"});
  EXPECT_EQ(o.iters_for(1024), 15);
  EXPECT_EQ(o.iters_for(64 * 1024 - 1), 15);
  EXPECT_EQ(o.iters_for(64 * 1024), 3);
  EXPECT_EQ(o.iters_for(std::uint64_t{4} << 20), 3);
  const Options plain = parse_options({"--pattern", "moore", "--iters", "7"});
  EXPECT_EQ(plain.iters_for(1), 7);
  EXPECT_EQ(plain.iters_for(std::uint64_t{1} << 30), 7);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--iters-below", "64K"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--iters-below", "64K:0"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "spmm", "--matrix", "gen:ccc:6", "--iters-below", "64K:5"}),
               std::invalid_argument);
}

TEST(Options, OpsAndModes) {
  const Options plain = parse_options({"--pattern", "rsg"});
  EXPECT_EQ(plain.op, Op::kAllgather);
  EXPECT_EQ(plain.mode, Mode::kBlocking);
  EXPECT_FALSE(plain.thread_multiple);
  EXPECT_TRUE(parse_options({"--pattern", "rsg", "--nonblocking", "--thread-multiple"}).thread_multiple);
  const Options o = parse_options({"--pattern", "moore", "--op", "alltoallv", "--nonblocking"});
  EXPECT_EQ(o.op, Op::kAlltoallv);
  EXPECT_EQ(o.mode, Mode::kNonblocking);
  EXPECT_EQ(parse_options({"--pattern", "rsg", "--persistent"}).mode, Mode::kPersistent);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--op", "reduce"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--nonblocking", "--persistent"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "spmm", "--matrix", "gen:ccc:3", "--op", "allgatherv"}),
               std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--device", "x.so", "--op", "alltoall"}), std::invalid_argument);
}

TEST(Options, ComputeBetweenStartAndWait) {
  const Options o = parse_options({"--pattern", "rsg", "--nonblocking", "--compute", "250", "--compute-kind", "idle"});
  ASSERT_TRUE(o.compute.has_value());
  EXPECT_FALSE(o.compute->as_native);
  EXPECT_DOUBLE_EQ(o.compute->us, 250.0);
  EXPECT_EQ(o.compute->kind, ComputeKind::kIdle);
  const Options n = parse_options({"--pattern", "rsg", "--persistent", "--compute", "native"});
  ASSERT_TRUE(n.compute.has_value());
  EXPECT_TRUE(n.compute->as_native);
  EXPECT_EQ(n.compute->kind, ComputeKind::kBusy);
  EXPECT_FALSE(parse_options({"--pattern", "rsg", "--nonblocking"}).compute.has_value());
  // Nothing to overlap in a blocking call; native needs the native column;
  // a kind alone, an unknown kind, a negative time: errors.
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--compute", "100"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--nonblocking", "--algos", "linear", "--compute", "native"}),
               std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--nonblocking", "--compute-kind", "idle"}), std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--nonblocking", "--compute", "1", "--compute-kind", "nap"}),
               std::invalid_argument);
  EXPECT_THROW(parse_options({"--pattern", "rsg", "--nonblocking", "--compute", "-5"}), std::invalid_argument);
}

TEST(Compute, OverlapIsOsusMetric) {
  // Pure 100 us, compute 100 us: overall 100 hides everything, 200 nothing,
  // 150 half; past the ends it is clamped.
  EXPECT_DOUBLE_EQ(overlap_percent(100, 100, 100), 100.0);
  EXPECT_DOUBLE_EQ(overlap_percent(100, 100, 200), 0.0);
  EXPECT_DOUBLE_EQ(overlap_percent(100, 100, 150), 50.0);
  EXPECT_DOUBLE_EQ(overlap_percent(100, 100, 90), 100.0);
  EXPECT_DOUBLE_EQ(overlap_percent(100, 100, 260), 0.0);
  EXPECT_DOUBLE_EQ(overlap_percent(0, 100, 150), 0.0);
}

TEST(Compute, TakesAtLeastItsTime) {
  for (const ComputeKind k : {ComputeKind::kBusy, ComputeKind::kIdle}) {
    const auto t0 = std::chrono::steady_clock::now();
    const double spent = compute_for(k, 2000);
    const double wall = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GE(spent, 2000.0);
    EXPECT_LE(spent, wall);
  }
}

TEST(Report, OverlapRowsStandBesideTheirPureRows) {
  Row pure{"rsg", "", 16, 2, 1024, "leader", {100, 90, 120}, {}, "ineighbor_allgather", {}, {}, {}, {}};
  Row overlap{
      "rsg", "",  16,    2,   1024, "leader", {130, 120, 140}, {}, std::string("ineighbor_allgather") + kComputeSuffix,
      {},    1.5, 100.0, 70.0};
  const std::vector<Row> rows{pure, overlap};
  std::ostringstream timing;
  print_timing_table(timing, rows);
  EXPECT_NE(timing.str().find("100.00"), std::string::npos);
  EXPECT_EQ(timing.str().find("130.00"), std::string::npos);  // the overlap row is not a timing row
  std::ostringstream table;
  print_overlap_table(table, "busy computation for 100 us", rows);
  EXPECT_NE(table.str().find("start, busy computation for 100 us, wait"), std::string::npos);
  // Pure 100, compute 100, overall 130: 70% hidden; paired 1.50x.
  EXPECT_NE(table.str().find("100.00       100.00       130.00      70.0%     1.50x"), std::string::npos)
      << table.str();
  std::ostringstream none;
  print_overlap_table(none, "x", {pure});
  EXPECT_TRUE(none.str().empty());
  std::ostringstream csv;
  write_csv_rows(csv, rows, {10, "emulated", "frontier", "Open MPI", "4.1.4", "0.1.0"});
  EXPECT_NE(csv.str().find("\"ineighbor_allgather+compute\",,1.5000,100.000,70.0\n"), std::string::npos) << csv.str();
}

TEST(Report, SpeedupsAndCsvColumns) {
  std::vector<Row> rows{
      {"rsg", "density=0.6;seed=1", 16, 2, 1024, "native", {100, 90, 120}, {}, "neighbor_allgather", {}, 1.0, {}, {}},
      {"rsg", "density=0.6;seed=1", 16, 2, 1024, "leader", {50, 40, 60}, {}, "neighbor_allgather", {}, 2.5, {}, {}},
      {"rsg", "density=0.6;seed=1", 16, 2, 2048, "leader", {50, 40, 60}, {}, "neighbor_allgather", {}, {}, {}, {}, 15},
      {"rsg", "density=0.6;seed=1", 16, 2, 1024, "leader", {50, 40, 60}, {}, "neighbor_alltoall", {}, {}, {}, {}}};
  compute_speedups(rows);
  ASSERT_TRUE(rows[1].speedup.has_value());
  EXPECT_DOUBLE_EQ(*rows[1].speedup, 2.0);
  EXPECT_FALSE(rows[2].speedup.has_value());
  EXPECT_FALSE(rows[3].speedup.has_value());  // native of another op does not count
  std::ostringstream csv;
  write_csv_rows(csv, rows, {10, "emulated", "frontier", "Open MPI", "4.1.4", "0.1.0"});
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "\"rsg\",\"density=0.6;seed=1\",16,2,1024,\"native\",100.000,90.000,120.000,1.0000,10,\"emulated\","
            "\"frontier\",\"Open MPI\",\"4.1.4\",\"0.1.0\",\"neighbor_allgather\",,1.0000,,");
  // A row timed with its own count (--iters-below) says it; the others the run's.
  EXPECT_NE(csv.str().find("2048,\"leader\",50.000,40.000,60.000,,15,\"emulated\""), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find("1024,\"leader\",50.000,40.000,60.000,,10,\"emulated\""), std::string::npos) << csv.str();
  EXPECT_EQ(std::string(kCsvHeader),
            "pattern,params,procs,nodes,size_bytes,algo,median_us,min_us,max_us,speedup_vs_native,"
            "iters,node_kind,topology,mpi,mpi_version,nbrcoll_version,op,predicted_us,paired_vs_native,compute_us,"
            "overlap_pct");
  std::ostringstream table;
  print_timing_table(table, rows);
  EXPECT_NE(table.str().find("2.00x     2.50x"), std::string::npos);  // Speedup, then Paired
}

TEST(Report, ModelTableShowsTheErrorPerRowAndItsMedianPerAlgorithm) {
  std::vector<Row> rows = {
      {"rsg", "", 16, 2, 1024, "linear", {100, 90, 120}, {}, "neighbor_allgather", 150.0, {}, {}, {}},
      {"rsg", "", 16, 2, 2048, "linear", {200, 190, 220}, {}, "neighbor_allgather", 150.0, {}, {}, {}},
      {"rsg", "", 16, 2, 4096, "linear", {400, 390, 420}, {}, "neighbor_allgather", 500.0, {}, {}, {}},
      {"rsg", "", 16, 2, 1024, "native", {100, 90, 120}, {}, "neighbor_allgather", {}, {}, {}, {}}};
  std::ostringstream out;
  print_model_table(out, "emulated", rows);
  const std::string s = out.str();
  EXPECT_NE(s.find("machine emulated"), std::string::npos);
  EXPECT_NE(s.find("+50%"), std::string::npos);  // 150 predicted for 100 measured
  EXPECT_NE(s.find("-25%"), std::string::npos);
  EXPECT_NE(s.find("+25%"), std::string::npos);
  EXPECT_EQ(s.find("native"), std::string::npos);  // no prediction, no row
  // |errors| 50%, 25%, 25%: median 25%.
  EXPECT_NE(s.find("median |error| linear"), std::string::npos);
  EXPECT_NE(s.find("25% over 3 sizes"), std::string::npos);
  std::ostringstream csv;
  write_csv_rows(csv, rows, {10, "emulated", "frontier", "Open MPI", "4.1.4", "0.1.0"});
  EXPECT_NE(csv.str().find("\"neighbor_allgather\",150.000,,,\n"), std::string::npos);
}

TEST(Sizes, SameParserAsTheLibrary) {
  // src/support/size_parse.h: every spelling of a unit, any case.
  EXPECT_EQ(nbrbench::parse_size("256K"), 256u << 10);
  EXPECT_EQ(nbrbench::parse_size("256KB"), 256u << 10);
  EXPECT_EQ(nbrbench::parse_size("256kib"), 256u << 10);
  EXPECT_EQ(nbrbench::parse_size("3mb"), 3u << 20);
  EXPECT_THROW(nbrbench::parse_size("99999999999999999999"), std::invalid_argument);
  EXPECT_THROW(nbrbench::parse_size("17179869184G"), std::invalid_argument);
}

TEST(Report, CsvQuotingAndMpiNames) {
  EXPECT_EQ(csv_quote("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_quote("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(mpi_name_and_version("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, "
                                 "2022\n"),
            (std::pair<std::string, std::string>{"Open MPI", "4.1.4"}));
  EXPECT_EQ(mpi_name_and_version("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022\n"),
            (std::pair<std::string, std::string>{"MPICH", "4.0.2"}));
  EXPECT_EQ(mpi_name_and_version("Intel(R) MPI Library 2021.5 for Linux* OS\n"),
            (std::pair<std::string, std::string>{"Intel(R) MPI Library", "2021.5"}));
  EXPECT_EQ(mpi_name_and_version(""), (std::pair<std::string, std::string>{"unknown", "unknown"}));
}

// The benchmark's order of algorithms per round: a permutation, the same for
// the same round, and over many rounds every algorithm runs right after
// every other one (no fixed predecessor).
TEST(RoundOrder, ShufflesEachRoundTheSameWayEverywhere) {
  const std::size_t n = 5;
  std::vector<std::size_t> a(n), b(n);
  std::vector<int> follows(n * n, 0);
  std::size_t previous = n;  // the last algorithm of the round before
  bool some_round_differs = false;
  for (std::uint64_t round = 0; round < 200; ++round) {
    round_order(round, a);
    round_order(round, b);
    EXPECT_EQ(a, b);
    std::vector<std::size_t> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(sorted[i], i);
    for (const std::size_t x : a) {
      if (previous < n) ++follows[previous * n + x];
      previous = x;
    }
    if (round > 0) {
      std::vector<std::size_t> first(n);
      round_order(0, first);
      some_round_differs = some_round_differs || a != first;
    }
  }
  EXPECT_TRUE(some_round_differs);
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t x = 0; x < n; ++x) {
      if (p == x) continue;
      EXPECT_GT(follows[p * n + x], 10) << x << " after " << p;
    }
  }
}
