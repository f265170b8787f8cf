// nbrcoll-model's and nbrcoll-calibrate's command lines, and machine loading.
#include "bench/model/model_options.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "bench/model/calibrate_options.h"
#include "bench/model/model_machine.h"

namespace nbrmodel {
namespace {

ModelOptions parse(const std::vector<std::string>& args) {
  return parse_model_options(args);
}

std::string error_of(const std::vector<std::string>& args) {
  try {
    parse(args);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ModelOptions, DefaultsAndEveryOption) {
  const ModelOptions d = parse({"--pattern", "moore"});
  EXPECT_EQ(d.node, "frontier");
  EXPECT_EQ(d.machine, "");
  EXPECT_EQ(d.nodes, (std::vector<int>{16, 64, 256, 1024}));
  EXPECT_EQ(d.ranks_per_node, 8);
  EXPECT_EQ(d.sizes, (std::vector<std::uint64_t>{1024, 16384, 262144, 4194304}));
  EXPECT_FALSE(d.alltoall);
  EXPECT_EQ(model_params(d), "d=2;r=1");

  const ModelOptions o = parse(
      {"--node", "mi250",    "--machine",    "x.machine", "--nodes", "2,4",  "--ranks-per-node", "4",       "--pattern",
       "rsg",    "--degree", "16",           "--seed",    "9",       "--op", "alltoall",         "--sizes", "1K:4K",
       "--csv",  "out.csv",  "--warn-edges", "100"});
  EXPECT_EQ(o.node, "mi250");
  EXPECT_EQ(o.machine, "x.machine");
  EXPECT_EQ(o.nodes, (std::vector<int>{2, 4}));
  EXPECT_EQ(o.ranks_per_node, 4);
  EXPECT_TRUE(o.alltoall);
  EXPECT_EQ(o.sizes, (std::vector<std::uint64_t>{1024, 2048, 4096}));
  EXPECT_EQ(o.csv, "out.csv");
  EXPECT_EQ(o.warn_edges, 100u);
  EXPECT_EQ(model_params(o), "degree=16;seed=9");
  // --degree K: density K / (ranks - 1) at each node count, at most 1.
  EXPECT_DOUBLE_EQ(rsg_density(o, 17), 1.0);
  EXPECT_DOUBLE_EQ(rsg_density(o, 33), 0.5);
  EXPECT_DOUBLE_EQ(rsg_density(parse({"--pattern", "rsg", "--density", "0.25"}), 1000), 0.25);
}

TEST(ModelOptions, MatrixByFlagOrPositional) {
  EXPECT_EQ(parse({"--pattern", "matrix", "--matrix", "a/crack.mtx"}).matrix, "a/crack.mtx");
  const ModelOptions o = parse({"--pattern", "matrix", "a/crack.mtx"});
  EXPECT_EQ(o.matrix, "a/crack.mtx");
  EXPECT_EQ(model_params(o), "matrix=crack");
}

TEST(ModelOptions, ErrorsAreOneLine) {
  EXPECT_EQ(error_of({}), "--pattern is required (rsg, moore or matrix)");
  EXPECT_EQ(error_of({"--pattern", "rsg"}), "--pattern rsg needs one of --density D or --degree K");
  EXPECT_EQ(error_of({"--pattern", "rsg", "--density", "0.1", "--degree", "4"}),
            "--pattern rsg needs one of --density D or --degree K");
  EXPECT_EQ(error_of({"--pattern", "rsg", "--density", "2"}), "--density: expected a number in (0, 1]");
  EXPECT_EQ(error_of({"--pattern", "rsg", "--density", "x"}), "--density: expected a positive number, got 'x'");
  EXPECT_EQ(error_of({"--pattern", "matrix"}), "--pattern matrix needs a matrix: --matrix FILE.mtx");
  EXPECT_EQ(error_of({"--pattern", "moore", "--density", "0.5"}), "--density and --degree belong to --pattern rsg");
  EXPECT_EQ(error_of({"--pattern", "ring"}), "--pattern: expected rsg, moore or matrix, got 'ring'");
  EXPECT_EQ(error_of({"--pattern", "moore", "--nodes", "4,0"}),
            "--nodes: expected an integer in [1, 1048576], got '0'");
  EXPECT_EQ(error_of({"--pattern", "moore", "--op", "allgatherv"}),
            "--op: expected allgather or alltoall, got 'allgatherv'");
  EXPECT_EQ(error_of({"--pattern", "moore", "--sizes"}), "--sizes needs a value");
  EXPECT_EQ(error_of({"--pattern", "moore", "extra"}), "unknown argument 'extra' (see --help)");
  EXPECT_EQ(error_of({"--pattern", "moore", "--nodes", "1024", "--ranks-per-node", "2048"}),
            "more than 2^20 ranks (--nodes x --ranks-per-node)");
  EXPECT_EQ(error_of({"--help"}), "");  // no pattern needed
  EXPECT_TRUE(parse({"--version"}).version);
}

TEST(ModelMachine, BuiltInFileAndErrors) {
  std::string error;
  const auto f = load_machine("", "frontier", error);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->model.name, "frontier");
  EXPECT_EQ(f->description, "frontier (built-in)");
  EXPECT_FALSE(load_machine("", "flat", error));
  EXPECT_EQ(error, "no built-in machine is named like --node flat; give --machine NAME or FILE");
  EXPECT_EQ(load_machine("emulated", "frontier", error)->model.name, "emulated");

  const std::string path = ::testing::TempDir() + "model_test.machine";
  std::ofstream(path) << "name = here\nnic = 42\n";
  const auto m = load_machine(path, "frontier", error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(m->model.nic_bytes_per_us, 42);
  EXPECT_EQ(m->model.copy_bytes_per_us, nbrcoll::algos::builtin_machine("frontier")->copy_bytes_per_us);
  EXPECT_EQ(m->description, path + " (file: name here)");
  std::ofstream(path) << "nic = 0\n";
  EXPECT_FALSE(load_machine(path, "frontier", error));
  EXPECT_EQ(error, path + ": line 1: '0' is not a positive number");
  std::remove(path.c_str());
  EXPECT_FALSE(load_machine(path, "frontier", error));
  EXPECT_EQ(error.rfind("--machine: '" + path + "' is neither a built-in machine (frontier, ", 0), 0u) << error;
}

TEST(CalibrateOptions, DefaultsQuickAndErrors) {
  using nbrcalib::parse_calibrate_options;
  const auto d = parse_calibrate_options({});
  EXPECT_EQ(d.large, 4u << 20);
  EXPECT_EQ(d.small_iters, 1000);
  EXPECT_EQ(d.name, "calibrated");
  EXPECT_FALSE(d.cores);
  const auto q = parse_calibrate_options({"--quick", "--out", "f", "--cores", "1.5", "--name", "box", "--reps", "3"});
  EXPECT_EQ(q.large, 1u << 20);
  EXPECT_EQ(q.small_iters, 100);
  EXPECT_EQ(q.reps, 3);
  EXPECT_EQ(q.out, "f");
  EXPECT_EQ(q.cores, 1.5);
  EXPECT_EQ(q.name, "box");
  EXPECT_EQ(parse_calibrate_options({"--large", "64K"}).large, 65536u);
  EXPECT_THROW(parse_calibrate_options({"--cores", "0"}), std::invalid_argument);
  EXPECT_THROW(parse_calibrate_options({"--name", "a#b"}), std::invalid_argument);
  EXPECT_THROW(parse_calibrate_options({"--large", "0"}), std::invalid_argument);
  EXPECT_THROW(parse_calibrate_options({"--iters", "-1"}), std::invalid_argument);
  EXPECT_THROW(parse_calibrate_options({"--bogus"}), std::invalid_argument);
}

}  // namespace
}  // namespace nbrmodel
