#include "support/mpi_identity.h"

#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "support/config.h"

namespace nbrcoll {

MpiFamily mpi_family(const std::string& v) {
  if (v.rfind("Open MPI", 0) == 0) return MpiFamily::kOpenMpi;
  for (const char* name : {"MPICH", "MVAPICH", "Intel(R) MPI", "CRAY MPICH"}) {
    if (v.find(name) != std::string::npos) return MpiFamily::kMpich;
  }
  return MpiFamily::kUnknown;
}

std::string mpi_mismatch_message(const std::string& built, const std::string& running,
                                 const std::string& running_path) {
  const MpiFamily want = built.rfind("openmpi", 0) == 0 ? MpiFamily::kOpenMpi
                         : built.rfind("mpich", 0) == 0 ? MpiFamily::kMpich
                                                        : MpiFamily::kUnknown;
  const MpiFamily have = mpi_family(running);
  if (want == MpiFamily::kUnknown || have == MpiFamily::kUnknown || want == have) return {};
  std::string first = running.substr(0, running.find('\n'));
  for (char& c : first) {
    if (c == '\t') c = ' ';
  }
  return "[nbrcoll] libnbrcoll was built for " + built + " but this program runs " + first + " (" + running_path +
         "): their ABIs differ, so nbrcoll stops here; use the libnbrcoll built for that MPI";
}

bool mpi_reports_gpu_support(const char* runtime, const SymbolLookup& lookup) {
  const auto find = [&lookup](const char* name) { return lookup ? lookup(name) : dlsym(RTLD_DEFAULT, name); };
  using Query = int (*)();
  const bool hip = std::strcmp(runtime, "hip") == 0;
  if (!hip && std::strcmp(runtime, "cuda") != 0) return false;
  const std::vector<const char*> names =
      hip ? std::vector<const char*>{"MPIX_Query_rocm_support", "MPIX_Query_hip_support"}
          : std::vector<const char*>{"MPIX_Query_cuda_support"};
  for (const char* name : names) {
    if (void* f = find(name)) return reinterpret_cast<Query>(f)() == 1;
  }
  // MPICH: MPIX_GPU_SUPPORT_CUDA = 0, MPIX_GPU_SUPPORT_HIP = 2 (its mpi.h).
  using GpuQuery = int (*)(int, int*);
  if (void* f = find("MPIX_GPU_query_support")) {
    int supported = 0;
    return reinterpret_cast<GpuQuery>(f)(hip ? 2 : 0, &supported) == 0 && supported != 0;
  }
  return false;
}

namespace {

// At load time (shared library only: the object is pulled into programs
// that link the archive only if they call something here).
__attribute__((constructor)) void refuse_foreign_mpi() {
  using Version = int (*)(char*, int*);
  // The MPI the program's own symbols resolve to: first in lookup order.
  void* f = dlsym(RTLD_DEFAULT, "PMPI_Get_library_version");
  if (f == nullptr) return;
  // Room for any MPI's text: MPI_MAX_LIBRARY_VERSION_STRING is 256 in Open
  // MPI's mpi.h but 8192 in MPICH's, and the running MPI is maybe the other.
  char text[16384] = {};
  int len = 0;
  if (reinterpret_cast<Version>(f)(text, &len) != 0) return;
  Dl_info where{};
  const std::string path = dladdr(f, &where) != 0 && where.dli_fname != nullptr ? where.dli_fname : "?";
  const std::string message = mpi_mismatch_message(NBRCOLL_BUILD_MPI, text, path);
  if (message.empty()) return;
  if (launcher_rank() <= 0) std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

namespace {
// Written once in MPI_Init(_thread), before any other thread of nbrcoll's.
std::optional<int> g_told_level;
}  // namespace

void set_told_thread_level(int level) {
  g_told_level = level;
}

std::optional<int> told_thread_level() {
  return g_told_level;
}

bool mpi_threads_concurrent() {
  static const bool concurrent = [] {
    int provided = MPI_THREAD_SINGLE;
    return PMPI_Query_thread(&provided) != MPI_SUCCESS || provided == MPI_THREAD_MULTIPLE;
  }();
  return concurrent;
}

}  // namespace nbrcoll
