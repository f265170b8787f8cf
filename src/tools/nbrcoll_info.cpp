// nbrcoll-info: what this nbrcoll is and what it would do here, in the manner
// of ompi_info / ucx_info: version, build options, the MPI it was built for
// and the one it runs with, every NBRCOLL_* variable (value, default,
// meaning), warnings about the environment, and the node topology.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "support/config.h"
#include "support/version.h"
#include "topo/node_topology.h"
#include "topo/providers.h"

namespace {

void usage() {
  std::printf(
      "Usage: nbrcoll-info [--version] [--help]\n"
      "Prints nbrcoll's version, build options, the MPI it was built for and the one loaded,\n"
      "every NBRCOLL_* variable with its current value, default and meaning, warnings about\n"
      "the environment, and where the node topology comes from. Runs without mpirun.\n");
}

const char* yes(bool b) {
  return b ? "yes" : "no";
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("nbrcoll-info (nbrcoll) %s\n", nbrcoll::build_info().version);
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      usage();
      return 0;
    }
    std::fprintf(stderr, "nbrcoll-info: unknown argument '%s' (see --help)\n", argv[i]);
    return 2;
  }
  const nbrcoll::BuildInfo& b = nbrcoll::build_info();
  // MPI_Get_library_version may be called before MPI_Init.
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string running(lib, static_cast<std::size_t>(len > 0 ? len : 0));
  running = running.substr(0, running.find('\n'));

  std::printf("nbrcoll %s\n\n", b.version);
  std::printf("Build:\n");
  std::printf("  MPI built for:       %s\n", b.mpi);
  std::printf("  MPI loaded:          %s\n", running.c_str());
  std::printf("  hwloc:               %s\n", yes(b.hwloc));
  std::printf("  ROCm SMI:            %s", b.rocm_smi ? "compiled" : "not compiled");
  if (b.rocm_smi) std::printf(", library %s", nbrcoll::topo::rocm_smi_loadable() ? "loadable" : "not loadable here");
  std::printf("\n  HIP plugin:          %s\n", b.hip_plugin ? "built (libnbrcoll-hip.so)" : "not built");
  std::printf("  CUDA plugin:         %s\n\n", b.cuda_plugin ? "built (libnbrcoll-cuda.so)" : "not built");

  std::vector<std::string> warnings;
  const nbrcoll::Config c = nbrcoll::parse_environment(warnings);

  std::printf("Environment:\n");
  for (const nbrcoll::EnvVarInfo& v : nbrcoll::env_vars()) {
    const char* value = std::getenv(v.name);
    std::printf("  %s=%s%s\n", v.name, value ? value : "", value ? "" : "(unset)");
    std::printf("      values: %s; default: %s\n      %s\n", v.values, v.default_value, v.meaning);
  }
  std::printf("\nWarnings:%s\n", warnings.empty() ? " none" : "");
  for (const std::string& w : warnings) std::printf("  %s\n", w.c_str());

  const nbrcoll::topo::LoadResult t = nbrcoll::topo::load_topology(c.topo);
  std::printf("\nNode topology (NBRCOLL_TOPO=%s):\n", c.topo.c_str());
  if (t.error.empty()) {
    std::printf("  source: %s, %d devices (nbrcoll-topo --topo %s shows it)\n", t.topology.source.c_str(),
                t.topology.devices, c.topo.c_str());
  } else {
    std::printf("  error: %s\n", t.error.c_str());
  }
  return 0;
}
