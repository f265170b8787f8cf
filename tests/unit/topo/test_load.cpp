// load_topology: the selection rule, files on disk, the machine's own providers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "tests/unit/topo/expected.h"
#include "topo/file_provider.h"
#include "topo/providers.h"

namespace nbrcoll::topo {
namespace {

TEST(Load, FlatAndFlatN) {
  LoadResult r = load_topology("flat");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.topology.devices, 1);
  r = load_topology(" flat:8 ");
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.topology.devices, 8);
  EXPECT_EQ(r.topology.package.back(), 7);
  for (const char* bad : {"flat:0", "flat:x", "flat:", "flat:-3", "flat:99999999"}) {
    r = load_topology(bad);
    EXPECT_NE(r.error.find("flat:N needs N"), std::string::npos) << bad;
    EXPECT_EQ(r.topology.devices, 1);
  }
}

TEST(Load, ModelsByNameAnyCaseWithOptionalPrefix) {
  for (const char* spec : {"frontier", "Frontier", "model:frontier"}) {
    const LoadResult r = load_topology(spec);
    EXPECT_EQ(r.error, "") << spec;
    EXPECT_EQ(r.topology.links, topo_test::kFrontierLinks) << spec;
    EXPECT_EQ(r.topology.source, "model:frontier");
  }
  EXPECT_EQ(load_topology("summit").topology.devices, 6);
}

TEST(Load, UnknownSpecIsAnErrorWithFlatFallback) {
  const LoadResult r = load_topology("bogus");
  EXPECT_NE(r.error.find("unknown topology 'bogus'"), std::string::npos);
  EXPECT_NE(r.error.find("frontier"), std::string::npos);
  EXPECT_EQ(r.topology.devices, 1);
  EXPECT_EQ(r.topology.source, "flat");
}

TEST(Load, AutoNeverFailsAndPrintsNothing) {
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  const LoadResult a = load_topology("auto");
  const LoadResult empty = load_topology("");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(a.error, "");
  EXPECT_EQ(empty.error, "");
  EXPECT_GE(a.topology.devices, 1);
  EXPECT_TRUE(a.topology.source == "rocm-smi" || a.topology.source == "hwloc" || a.topology.source == "flat")
      << a.topology.source;
}

TEST(Load, HwlocProviderOnThisMachine) {
  NodeTopology t;
  std::string why;
  if (!hwloc_compiled()) {
    EXPECT_FALSE(probe_hwloc(t, why));
    EXPECT_EQ(why, "built without hwloc");
    EXPECT_NE(load_topology("hwloc").error, "");
    GTEST_SKIP() << "built without hwloc";
  }
  ASSERT_TRUE(probe_hwloc(t, why)) << why;
  EXPECT_EQ(t.source, "hwloc");
  EXPECT_GE(t.devices, 1);
  for (int i = 0; i < t.devices; ++i) {
    EXPECT_GE(t.numa[static_cast<std::size_t>(i)], 0);
    for (int j = 0; j < t.devices; ++j) {
      EXPECT_EQ(link_count(t, i, j), 0);
      EXPECT_EQ(hop_count(t, i, j), i == j ? 0 : 1);
    }
  }
  EXPECT_EQ(load_topology("hwloc").error, "");
}

TEST(Load, RocmSmiWithoutGpusIsAQuietFailure) {
  testing::internal::CaptureStderr();
  NodeTopology t;
  std::string why;
  const bool found = probe_rocm_smi(t, why);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  if (found) GTEST_SKIP() << "this machine has AMD GPUs";
  EXPECT_NE(why, "");
  const LoadResult r = load_topology("rocm-smi");
  EXPECT_NE(r.error, "");
  EXPECT_EQ(r.topology.devices, 1);
}

TEST(Load, FileSelectionRule) {
  EXPECT_TRUE(looks_like_file("./x"));
  EXPECT_TRUE(looks_like_file("node.topo"));
  EXPECT_TRUE(looks_like_file("node.txt"));
  EXPECT_TRUE(looks_like_file("node.xml"));
  EXPECT_FALSE(looks_like_file("frontier"));
  const std::string path = topo_test::write_temp("plainname", "devices 2\n");
  EXPECT_TRUE(looks_like_file(path));
}

TEST(Load, TextAndXmlFilesFromDisk) {
  const std::string text = topo_test::write_temp("two.topo", "devices 2\nlinks\n0 4\n4 0\n");
  LoadResult r = load_topology(text);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.package, (std::vector<int>{0, 0}));
  EXPECT_EQ(r.topology.source, "file:" + text);

  const std::string xml = topo_test::write_temp("frontier.xml", topo_test::frontier_xml());
  r = load_topology(xml);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.links, topo_test::kFrontierLinks);
  EXPECT_EQ(r.topology.hops, topo_test::kFrontierHops);

  // XML recognised by content, whatever the name.
  const std::string sniffed = topo_test::write_temp("node.topo", "\n  " + topo_test::frontier_xml());
  EXPECT_EQ(load_topology(sniffed).error, "");
}

TEST(Load, BadFilesGiveErrors) {
  LoadResult r = load_topology("/nonexistent/dir/node.topo");
  EXPECT_NE(r.error.find("cannot open topology file '/nonexistent/dir/node.topo'"), std::string::npos);
  EXPECT_EQ(r.topology.devices, 1);
  r = load_topology("/tmp");
  EXPECT_NE(r.error.find("not a regular file"), std::string::npos) << r.error;
  const std::string bad = topo_test::write_temp("bad.xml", "<system>\n<gpu dev=\"0\"");
  r = load_topology(bad);
  EXPECT_NE(r.error.find(bad + ": line 2: unterminated tag <gpu"), std::string::npos) << r.error;
  const std::string empty = topo_test::write_temp("empty.topo", "");
  EXPECT_NE(load_topology(empty).error.find("no 'devices N' line"), std::string::npos);
}

}  // namespace
}  // namespace nbrcoll::topo
