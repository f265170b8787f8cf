#include "tests/unit/topo/expected.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace topo_test {

// clang-format off
const std::vector<int> kFrontierLinks = {
  0, 4, 1, 0, 0, 0, 2, 0,
  4, 0, 0, 1, 0, 1, 0, 0,
  1, 0, 0, 4, 2, 0, 0, 0,
  0, 1, 4, 0, 0, 0, 0, 1,
  0, 0, 2, 0, 0, 4, 1, 0,
  0, 1, 0, 0, 4, 0, 0, 1,
  2, 0, 0, 0, 1, 0, 0, 4,
  0, 0, 0, 1, 0, 1, 4, 0};
const std::vector<int> kFrontierHops = {
  0, 1, 1, 2, 2, 2, 1, 2,
  1, 0, 2, 1, 2, 1, 2, 2,
  1, 2, 0, 1, 1, 2, 2, 2,
  2, 1, 1, 0, 2, 2, 2, 1,
  2, 2, 1, 2, 0, 1, 1, 2,
  2, 1, 2, 2, 1, 0, 2, 1,
  1, 2, 2, 2, 1, 2, 0, 1,
  2, 2, 2, 1, 2, 1, 1, 0};
const std::vector<int> kFrontierPackage = {0, 0, 1, 1, 2, 2, 3, 3};
const std::vector<int> kFrontierNuma = {3, 3, 1, 1, 0, 0, 2, 2};
const std::vector<int> kMi250Links = {
  0, 4, 0, 0, 2, 0, 1, 0,
  4, 0, 0, 1, 0, 0, 0, 1,
  0, 0, 0, 4, 1, 0, 2, 0,
  0, 1, 4, 0, 0, 1, 0, 0,
  2, 0, 1, 0, 0, 4, 0, 0,
  0, 0, 0, 1, 4, 0, 0, 1,
  1, 0, 2, 0, 0, 0, 0, 4,
  0, 1, 0, 0, 0, 1, 4, 0};
const std::vector<int> kMi250Hops = {
  0, 1, 2, 2, 1, 2, 1, 2,
  1, 0, 2, 1, 2, 2, 2, 1,
  2, 2, 0, 1, 1, 2, 1, 2,
  2, 1, 1, 0, 2, 1, 2, 2,
  1, 2, 1, 2, 0, 1, 2, 2,
  2, 2, 2, 1, 1, 0, 2, 1,
  1, 2, 1, 2, 2, 2, 0, 1,
  2, 1, 2, 2, 2, 1, 1, 0};
// clang-format on

namespace {
const char* const kBus[8] = {"c1", "c6", "c9", "ce", "d1", "d6", "d9", "de"};
}

std::string frontier_xml() {
  std::string x = "<?xml version=\"1.0\"?>\n<!-- Frontier node, RCCL style -->\n<system version=\"1\">\n";
  for (int numa = 0; numa < 4; ++numa) {
    x += "  <cpu numaid=\"" + std::to_string(numa) + "\" arch=\"x86_64\">\n";
    for (int g = 0; g < 8; ++g) {
      if (kFrontierNuma[static_cast<std::size_t>(g)] != numa) continue;
      x += "    <pci busid=\"0000:" + std::string(kBus[g]) + ":00.0\" class=\"0x038000\">\n";
      x += "      <gpu dev=\"" + std::to_string(g) + "\" rank=\"" + std::to_string(g) + "\" gcn=\"gfx90a\">\n";
      for (int p = 0; p < 8; ++p) {
        const int c = kFrontierLinks[static_cast<std::size_t>(g * 8 + p)];
        if (c > 0)
          x += "        <xgmi target=\"0000:" + std::string(kBus[p]) + ":00.0\" count=\"" + std::to_string(c) +
               "\" tclass=\"0x038000\"/>\n";
      }
      x += "      </gpu>\n    </pci>\n";
    }
    x += "  </cpu>\n";
  }
  x += "</system>\n";
  return x;
}

std::string write_temp(const std::string& name, const std::string& text) {
  static std::string dir;
  if (dir.empty()) {
    char tmpl[] = "/tmp/nbrcoll_topo_test_XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    dir = d ? d : "/tmp";
  }
  const std::string path = dir + "/" + name;
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  return path;
}

}  // namespace topo_test
