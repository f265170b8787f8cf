// Runs the built nbrcoll-topo and checks what it prints.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "tests/unit/topo/expected.h"

namespace {

struct ToolRun {
  int status = -1;
  std::string out;
};

// Runs the tool with `args` (shell words); stderr goes where `err` says.
ToolRun run_tool(const std::string& args, const std::string& err = "2>&1") {
  ToolRun r;
  const std::string cmd = std::string("env -u NBRCOLL_TOPO '") + NBRCOLL_TOPO_TOOL + "' " + args + " " + err;
  std::FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// Just enough JSON for the tool's output: objects, arrays, ints, strings.
struct Json {
  std::vector<Json> items;
  std::map<std::string, Json> fields;
  long number = 0;
  std::string text;
  char kind = '?';  // '{' '[' 'n' 's'
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& s) : s_(s) {}
  bool read(Json& v) {
    if (!value(v, 0)) return false;
    skip();
    return i_ == s_.size();
  }

 private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool string(std::string& out) {
    if (!eat('"')) return false;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') ++i_;
      if (i_ < s_.size()) out += s_[i_++];
    }
    return eat('"');
  }
  bool value(Json& v, int depth) {
    if (depth > 10) return false;
    skip();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = '{';
      ++i_;
      if (eat('}')) return true;
      do {
        std::string key;
        if (!string(key) || !eat(':') || !value(v.fields[key], depth + 1)) return false;
      } while (eat(','));
      return eat('}');
    }
    if (c == '[') {
      v.kind = '[';
      ++i_;
      if (eat(']')) return true;
      do {
        v.items.emplace_back();
        if (!value(v.items.back(), depth + 1)) return false;
      } while (eat(','));
      return eat(']');
    }
    if (c == '"') {
      v.kind = 's';
      return string(v.text);
    }
    v.kind = 'n';
    std::size_t used = 0;
    try {
      v.number = std::stol(s_.substr(i_), &used);
    } catch (...) {
      return false;
    }
    i_ += used;
    return true;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

std::vector<int> ints(const Json& a) {
  std::vector<int> out;
  for (const Json& x : a.items) out.push_back(static_cast<int>(x.number));
  return out;
}

std::vector<int> rows(const Json& m) {
  std::vector<int> out;
  for (const Json& r : m.items)
    for (int x : ints(r)) out.push_back(x);
  return out;
}

TEST(Tool, FrontierJsonParsesToTheFrontierMatrices) {
  const ToolRun r = run_tool("--topo frontier --json");
  ASSERT_EQ(r.status, 0) << r.out;
  Json j;
  ASSERT_TRUE(JsonReader(r.out).read(j)) << r.out;
  ASSERT_EQ(j.kind, '{');
  EXPECT_EQ(j.fields["devices"].number, 8);
  EXPECT_EQ(j.fields["source"].text, "model:frontier");
  EXPECT_EQ(j.fields["links"].items.size(), 8u);
  EXPECT_EQ(rows(j.fields["links"]), topo_test::kFrontierLinks);
  EXPECT_EQ(rows(j.fields["hops"]), topo_test::kFrontierHops);
  EXPECT_EQ(ints(j.fields["package"]), topo_test::kFrontierPackage);
  EXPECT_EQ(ints(j.fields["numa"]), topo_test::kFrontierNuma);
}

TEST(Tool, TablesLikeRocmSmi) {
  const ToolRun r = run_tool("--topo=mi250");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* s : {"Link count between two GPUs", "Hops between two GPUs", "Packages", "Numa Nodes",
                        "GPU[6]\t: package 3 with GPU 7", "GPU[0]\t: (Topology) Numa Node: 1"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(Tool, PlainRunOnThisMachineIsQuietOnStderr) {
  const ToolRun err = run_tool("", "2>&1 >/dev/null");
  EXPECT_EQ(err.status, 0);
  EXPECT_EQ(err.out, "");  // only stderr was captured
  const ToolRun out = run_tool("--json", "2>/dev/null");
  Json j;
  ASSERT_TRUE(JsonReader(out.out).read(j)) << out.out;
  EXPECT_GE(j.fields["devices"].number, 1);
}

TEST(Tool, BadTopoAndBadUsage) {
  ToolRun r = run_tool("--topo bogus");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("nbrcoll-topo: unknown topology 'bogus'"), std::string::npos) << r.out;
  r = run_tool("--topo /nonexistent.topo");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("cannot open"), std::string::npos) << r.out;
  r = run_tool("--frobnicate");
  EXPECT_EQ(r.status, 2);
  r = run_tool("--topo");
  EXPECT_EQ(r.status, 2);
  r = run_tool("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Usage: nbrcoll-topo"), std::string::npos);
}

}  // namespace
