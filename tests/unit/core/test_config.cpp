// NBRCOLL_* parsing: good values taken, bad values warned about and defaulted.
#include <gtest/gtest.h>

#include <map>

#include "call/progress_thread.h"
#include "support/config.h"

namespace nbrcoll {
namespace {

Config parse(const std::map<std::string, std::string>& env, std::vector<std::string>& warnings) {
  return parse_config(
      [&env](const char* name) -> std::optional<std::string> {
        auto it = env.find(name);
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      warnings);
}

TEST(Config, DefaultsWithEmptyEnvironment) {
  std::vector<std::string> warnings;
  const Config c = parse({}, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.algo, Algo::automatic());
  EXPECT_EQ(c.threshold, 32u * 1024u);
  EXPECT_FALSE(c.threshold_set);  // auto follows the cost model
  EXPECT_TRUE(c.machine.empty());
  EXPECT_EQ(c.topo, "auto");
  EXPECT_EQ(c.ranks_per_node, 0);
  EXPECT_EQ(c.watchdog, 0.0);
  EXPECT_EQ(c.debug, LogLevel::kWarn);
  EXPECT_FALSE(c.disable);
  EXPECT_TRUE(c.device_map.empty());
  EXPECT_TRUE(c.device_backend.empty());
  EXPECT_TRUE(c.device_ipc);
  EXPECT_FALSE(c.gpu_aware.has_value());
  EXPECT_EQ(c.report, ReportTo::kOff);
}

TEST(Config, DeviceSettings) {
  std::vector<std::string> warnings;
  Config c = parse(
      {{"NBRCOLL_DEVICE_BACKEND", "/x/libnbrcoll-cuda.so"}, {"NBRCOLL_DEVICE_IPC", "0"}, {"NBRCOLL_GPU_AWARE", "1"}},
      warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.device_backend, "/x/libnbrcoll-cuda.so");
  EXPECT_FALSE(c.device_ipc);
  EXPECT_EQ(c.gpu_aware, std::optional<bool>(true));
  c = parse({{"NBRCOLL_GPU_AWARE", "auto"}, {"NBRCOLL_DEVICE_IPC", "yes"}}, warnings);
  EXPECT_FALSE(c.gpu_aware.has_value());
  EXPECT_TRUE(c.device_ipc);
  c = parse({{"NBRCOLL_GPU_AWARE", "maybe"}, {"NBRCOLL_DEVICE_IPC", "2"}}, warnings);
  EXPECT_EQ(warnings.size(), 2u);
  EXPECT_FALSE(c.gpu_aware.has_value());
  EXPECT_TRUE(c.device_ipc);
}

// NBRCOLL_REPORT: yes and no words switch the report to stderr or off;
// anything else is the file rank 0 writes it to.
TEST(Config, ReportGoesToStderrOrAFile) {
  std::vector<std::string> warnings;
  for (const char* on : {"1", "yes", "TRUE"})
    EXPECT_EQ(parse({{"NBRCOLL_REPORT", on}}, warnings).report, ReportTo::kStderr);
  for (const char* off : {"0", "no", ""}) EXPECT_EQ(parse({{"NBRCOLL_REPORT", off}}, warnings).report, ReportTo::kOff);
  const Config c = parse({{"NBRCOLL_REPORT", "/tmp/run.report"}}, warnings);
  EXPECT_EQ(c.report, ReportTo::kFile);
  EXPECT_EQ(c.report_path, "/tmp/run.report");
  EXPECT_TRUE(warnings.empty());
}

TEST(Config, ProgressByCallsTheMpiOrAThread) {
  std::vector<std::string> warnings;
  const Config plain = parse({}, warnings);
  EXPECT_EQ(plain.progress, ProgressMode::kMpi);  // calls where the MPI has no hook (entry/init.cpp)
  EXPECT_FALSE(plain.progress_set);
  EXPECT_EQ(plain.progress_interval_us, 20);
  EXPECT_EQ(parse({{"NBRCOLL_PROGRESS", "Thread"}}, warnings).progress, ProgressMode::kThread);
  const Config every = parse({{"NBRCOLL_PROGRESS", "thread:150"}}, warnings);
  EXPECT_EQ(every.progress, ProgressMode::kThread);
  EXPECT_EQ(every.progress_interval_us, 150);
  EXPECT_EQ(parse({{"NBRCOLL_PROGRESS", "thread:0"}}, warnings).progress_interval_us, 0);
  EXPECT_EQ(parse({{"NBRCOLL_PROGRESS", "calls"}}, warnings).progress, ProgressMode::kCalls);
  const Config always = parse({{"NBRCOLL_PROGRESS", "thread-always:5"}}, warnings);
  EXPECT_EQ(always.progress, ProgressMode::kThreadAlways);
  EXPECT_EQ(always.progress_interval_us, 5);
  const Config mpi = parse({{"NBRCOLL_PROGRESS", "MPI"}}, warnings);
  EXPECT_EQ(mpi.progress, ProgressMode::kMpi);
  EXPECT_TRUE(mpi.progress_set);
  EXPECT_TRUE(warnings.empty());
  for (const char* bad : {"threads", "thread:", "thread:-1", "thread:5x", "calls:20", "thread:2000000", "mpi:20"}) {
    std::vector<std::string> w;
    const Config c = parse({{"NBRCOLL_PROGRESS", bad}}, w);
    EXPECT_EQ(c.progress, ProgressMode::kMpi) << bad;
    EXPECT_FALSE(c.progress_set) << bad;
    EXPECT_EQ(c.progress_interval_us, 20) << bad;
    EXPECT_EQ(w.size(), 1U) << bad;
  }
}

TEST(Config, AProgressThreadNeedsACorePerRank) {
  EXPECT_TRUE(thread_fits(4, 16));
  EXPECT_TRUE(thread_fits(16, 16));
  EXPECT_FALSE(thread_fits(17, 16));
  EXPECT_FALSE(thread_fits(8, 2));
  EXPECT_TRUE(thread_fits(0, 2));  // no launcher said: allowed
  EXPECT_TRUE(thread_fits(8, 0));  // the CPUs not known: allowed
}

TEST(Config, GoodValues) {
  std::vector<std::string> warnings;
  const Config c = parse({{"NBRCOLL_ALGO", "leader"},
                          {"NBRCOLL_THRESHOLD", "64K"},
                          {"NBRCOLL_TOPO", "frontier"},
                          {"NBRCOLL_RANKS_PER_NODE", "8"},
                          {"NBRCOLL_WATCHDOG", "2.5"},
                          {"NBRCOLL_DEBUG", "info"},
                          {"NBRCOLL_DISABLE", "1"},
                          {"NBRCOLL_DEVICE_MAP", "3,2,1,0"}},
                         warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.algo, Algo::fixed(algos::Variant::kLeader));
  EXPECT_EQ(c.threshold, 64u * 1024u);
  EXPECT_TRUE(c.threshold_set);
  EXPECT_EQ(c.topo, "frontier");
  EXPECT_EQ(c.ranks_per_node, 8);
  EXPECT_EQ(c.watchdog, 2.5);
  EXPECT_EQ(c.debug, LogLevel::kInfo);
  EXPECT_TRUE(c.disable);
  EXPECT_EQ(c.device_map, (std::vector<int>{3, 2, 1, 0}));
}

TEST(Config, PlainByteCountsAndEveryAlgorithmName) {
  std::vector<std::string> warnings;
  EXPECT_EQ(parse({{"NBRCOLL_THRESHOLD", "1000"}}, warnings).threshold, 1000u);
  EXPECT_EQ(parse({{"NBRCOLL_MACHINE", "/tmp/cluster.machine"}}, warnings).machine, "/tmp/cluster.machine");
  for (const char* name : {"auto", "leader", "linear", "aggregated", "native"}) {
    const Config c = parse({{"NBRCOLL_ALGO", name}}, warnings);
    EXPECT_STREQ(algo_name(c.algo), name);
  }
  EXPECT_TRUE(warnings.empty());
}

TEST(Config, BadValuesWarnOnceEachAndKeepDefaults) {
  std::vector<std::string> warnings;
  const Config c = parse({{"NBRCOLL_ALGO", "fastest"},
                          {"NBRCOLL_THRESHOLD", "-5"},
                          {"NBRCOLL_TOPO", ""},
                          {"NBRCOLL_RANKS_PER_NODE", "two"},
                          {"NBRCOLL_WATCHDOG", "soon"},
                          {"NBRCOLL_DEBUG", "loud"},
                          {"NBRCOLL_DISABLE", "maybe"},
                          {"NBRCOLL_DEVICE_MAP", "0,x"}},
                         warnings);
  EXPECT_EQ(warnings.size(), 8u);
  for (const auto& w : warnings) EXPECT_NE(w.find("ignoring NBRCOLL_"), std::string::npos) << w;
  EXPECT_EQ(c.algo, Algo::automatic());
  EXPECT_EQ(c.threshold, 32u * 1024u);
  EXPECT_EQ(c.topo, "auto");
  EXPECT_EQ(c.ranks_per_node, 0);
  EXPECT_EQ(c.watchdog, 0.0);
  EXPECT_EQ(c.debug, LogLevel::kWarn);
  EXPECT_FALSE(c.disable);
  EXPECT_TRUE(c.device_map.empty());
}

TEST(Config, OverflowingSizeIsRejected) {
  std::vector<std::string> warnings;
  const Config c = parse({{"NBRCOLL_THRESHOLD", "99999999999999999999G"}}, warnings);
  EXPECT_EQ(warnings.size(), 1u);
  EXPECT_EQ(c.threshold, 32u * 1024u);
}

TEST(Config, OverrideWinsOverEnvironment) {
  set_algo_override(Algo::fixed(algos::Variant::kLinear));
  EXPECT_EQ(effective_algo(), Algo::fixed(algos::Variant::kLinear));
  set_algo_override(std::nullopt);
  EXPECT_EQ(effective_algo(), config().algo);
}

}  // namespace
}  // namespace nbrcoll

namespace nbrcoll {
namespace {

TEST(Config, KeywordsAreCaseInsensitive) {
  std::vector<std::string> warnings;
  const Config c = parse({{"NBRCOLL_ALGO", "LEADER"},
                          {"NBRCOLL_DEBUG", "Info"},
                          {"NBRCOLL_DISABLE", "TRUE"},
                          {"NBRCOLL_DEVICE_IPC", "No"},
                          {"NBRCOLL_GPU_AWARE", "AUTO"}},
                         warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(c.algo, Algo::fixed(algos::Variant::kLeader));
  EXPECT_EQ(c.debug, LogLevel::kInfo);
  EXPECT_TRUE(c.disable);
  EXPECT_FALSE(c.device_ipc);
  EXPECT_FALSE(c.gpu_aware.has_value());
}

TEST(Config, SizesTakeEverySpellingOfAUnit) {
  for (const char* v : {"256K", "256k", "256KB", "256kb", "256KiB", "256kib", "262144", "262144B"}) {
    std::vector<std::string> warnings;
    EXPECT_EQ(parse({{"NBRCOLL_THRESHOLD", v}}, warnings).threshold, 256u * 1024u) << v;
    EXPECT_TRUE(warnings.empty()) << v;
  }
  std::vector<std::string> warnings;
  EXPECT_EQ(parse({{"NBRCOLL_THRESHOLD", "2MiB"}}, warnings).threshold, 2u << 20);
  for (const char* v : {"256Q", "256KK", "K", " 256K", "256K ", "1.5M", "256iB"}) {
    warnings.clear();
    EXPECT_EQ(parse({{"NBRCOLL_THRESHOLD", v}}, warnings).threshold, 32u * 1024u) << v;
    EXPECT_EQ(warnings.size(), 1u) << v;
  }
}

TEST(Config, EveryVariableReadIsListed) {
  std::vector<std::string> asked;
  std::vector<std::string> warnings;
  parse_config(
      [&asked](const char* name) -> std::optional<std::string> {
        asked.emplace_back(name);
        return std::nullopt;
      },
      warnings);
  ASSERT_FALSE(asked.empty());
  for (const std::string& name : asked) {
    bool listed = false;
    for (const EnvVarInfo& v : env_vars()) listed = listed || name == v.name;
    EXPECT_TRUE(listed) << name << " is read but not in env_vars()";
  }
  // And every listed variable is known (no warning for it).
  std::vector<std::string> names;
  for (const EnvVarInfo& v : env_vars()) names.emplace_back(v.name);
  EXPECT_TRUE(unknown_env_warnings(names).empty());
}

TEST(Config, UnknownVariablesAreNamedWithTheClosestKnownOne) {
  const auto w = unknown_env_warnings(
      {"NBRCOLL_ALOG", "PATH", "NBRCOLL_ALGO", "NBRCOLL_TRESHOLD", "NBRCOLL_TEST_SEED", "NBRCOLL_RANK_PER_NODE"});
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], "unknown variable NBRCOLL_ALOG (did you mean NBRCOLL_ALGO?)");
  EXPECT_EQ(w[1], "unknown variable NBRCOLL_TRESHOLD (did you mean NBRCOLL_THRESHOLD?)");
  EXPECT_EQ(w[2], "unknown variable NBRCOLL_RANK_PER_NODE (did you mean NBRCOLL_RANKS_PER_NODE?)");
}

}  // namespace
}  // namespace nbrcoll
