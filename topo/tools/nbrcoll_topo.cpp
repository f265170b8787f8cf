// nbrcoll-topo: shows the node topology nbrcoll would use, laid out the way
// `rocm-smi --showtopo` users expect, or as JSON.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "nbrcoll/nbrcoll.h"
#include "topo/json.h"
#include "topo/models.h"
#include "topo/node_topology.h"

namespace {

using nbrcoll::topo::NodeTopology;

void usage(std::FILE* f) {
  std::string models;
  for (const std::string& m : nbrcoll::topo::model_names()) models += (models.empty() ? "" : ", ") + m;
  std::fprintf(f,
               "Usage: nbrcoll-topo [--topo SPEC] [--json] [--help] [--version]\n"
               "Prints the node topology nbrcoll uses: xGMI/NVLink link counts (T_l), hops (T_h),\n"
               "packages and NUMA nodes of the devices.\n\n"
               "  --topo SPEC  where the topology comes from (default: $NBRCOLL_TOPO, else auto):\n"
               "               auto | flat | flat:N | rocm-smi | hwloc | a model | a file path\n"
               "               models: %s\n"
               "               files: nbrcoll text format or NCCL/RCCL topology XML\n"
               "  --json       one JSON object: devices, source, package, numa, links, hops\n"
               "  --help       this text\n"
               "  --version    nbrcoll's version\n"
               "Exit status: 0 ok, 1 the topology could not be loaded, 2 bad usage.\n",
               models.c_str());
}

void banner(const char* title) {
  const int width = 80, len = static_cast<int>(std::strlen(title)) + 2;
  const int left = (width - len) / 2, right = width - len - left;
  std::printf("%s %s %s\n", std::string(static_cast<std::size_t>(left > 0 ? left : 0), '=').c_str(), title,
              std::string(static_cast<std::size_t>(right > 0 ? right : 0), '=').c_str());
}

void table(const NodeTopology& t, const std::vector<int>& m, const char* title) {
  banner(title);
  // Columns 8 wide, no trailing blanks.
  std::printf("%-8s", "");
  for (int j = 0; j < t.devices; ++j) std::printf(j + 1 < t.devices ? "GPU%-5d" : "GPU%d", j);
  std::printf("\n");
  const auto n = static_cast<std::size_t>(t.devices);
  for (std::size_t i = 0; i < n; ++i) {
    std::printf("GPU%-5zu", i);
    for (std::size_t j = 0; j < n; ++j) std::printf(j + 1 < n ? "%-8d" : "%d", m[i * n + j]);
    std::printf("\n");
  }
  std::printf("\n");
}

void print_tables(const NodeTopology& t) {
  banner("nbrcoll node topology");
  std::printf("Source: %s\nDevices: %d\n\n", t.source.c_str(), t.devices);
  table(t, t.links, "Link count between two GPUs");
  table(t, t.hops, "Hops between two GPUs");
  banner("Packages");
  for (int d = 0; d < t.devices; ++d) {
    std::string others;
    for (int p : nbrcoll::topo::peers(t, d)) others += (others.empty() ? "" : ", ") + std::to_string(p);
    std::printf("GPU[%d]\t: package %d%s%s\n", d, t.package[static_cast<std::size_t>(d)],
                others.empty() ? " (alone)" : " with GPU ", others.c_str());
  }
  std::printf("\n");
  banner("Numa Nodes");
  for (int d = 0; d < t.devices; ++d) {
    const int numa = t.numa[static_cast<std::size_t>(d)];
    if (numa < 0) {
      std::printf("GPU[%d]\t: (Topology) Numa Node: unknown\n", d);
    } else {
      std::printf("GPU[%d]\t: (Topology) Numa Node: %d\n", d, numa);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* env = std::getenv("NBRCOLL_TOPO");
  std::string spec = env && *env ? env : "auto";
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--version") {
      std::printf("nbrcoll-topo (nbrcoll) %s\n", NBRCOLL_VERSION_STRING);
      return 0;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--topo") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "nbrcoll-topo: --topo needs a value (see --help)\n");
        return 2;
      }
      spec = argv[++i];
    } else if (a.rfind("--topo=", 0) == 0) {
      spec = a.substr(7);
    } else {
      std::fprintf(stderr, "nbrcoll-topo: unknown argument '%s' (see --help)\n", a.c_str());
      return 2;
    }
  }
  const nbrcoll::topo::LoadResult r = nbrcoll::topo::load_topology(spec);
  if (!r.error.empty()) {
    std::fprintf(stderr, "nbrcoll-topo: %s\n", r.error.c_str());
    return 1;
  }
  if (json) {
    std::printf("%s\n", nbrcoll::topo::to_json(r.topology).c_str());
  } else {
    print_tables(r.topology);
  }
  return 0;
}
