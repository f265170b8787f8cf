// Which MPI runs, against the one libnbrcoll was built for; the GPU-aware
// queries by each MPI's own name.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "support/mpi_identity.h"

namespace nbrcoll {
namespace {

const char* const kOpenMpi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
const char* const kMpich = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n";

TEST(MpiIdentity, Families) {
  EXPECT_EQ(mpi_family(kOpenMpi), MpiFamily::kOpenMpi);
  EXPECT_EQ(mpi_family(kMpich), MpiFamily::kMpich);
  EXPECT_EQ(mpi_family("MVAPICH2 Version      :\t2.3.7"), MpiFamily::kMpich);
  EXPECT_EQ(mpi_family("Intel(R) MPI Library 2021.5 for Linux* OS"), MpiFamily::kMpich);
  EXPECT_EQ(mpi_family("Something else 1.0"), MpiFamily::kUnknown);
}

TEST(MpiIdentity, SameFamilyPassesOtherFamilyIsRefusedInOneLine) {
  EXPECT_EQ(mpi_mismatch_message("openmpi 4.1.4", kOpenMpi, "/usr/lib/libmpi.so.40"), "");
  EXPECT_EQ(mpi_mismatch_message("mpich 4.0.2", kMpich, "/usr/lib/libmpich.so.12"), "");
  EXPECT_EQ(mpi_mismatch_message("mpich 4.0.2", "Intel(R) MPI Library 2021.5", "libmpi.so.12"), "");
  EXPECT_EQ(mpi_mismatch_message("openmpi 4.1.4", "Something else 1.0", "x.so"), "");  // cannot tell: no refusal

  const std::string m = mpi_mismatch_message("openmpi 4.1.4", kMpich, "/usr/lib/libmpich.so.12");
  EXPECT_EQ(m,
            "[nbrcoll] libnbrcoll was built for openmpi 4.1.4 but this program runs MPICH Version: 4.0.2 "
            "(/usr/lib/libmpich.so.12): their ABIs differ, so nbrcoll stops here; use the libnbrcoll built for "
            "that MPI");
  EXPECT_EQ(m.find('\n'), std::string::npos);
  const std::string r = mpi_mismatch_message("mpich 4.0.2", kOpenMpi, "/usr/lib/libmpi.so.40");
  EXPECT_NE(r.find("built for mpich 4.0.2 but this program runs Open MPI v4.1.4"), std::string::npos) << r;
}

// Stand-ins for the MPIX queries, with a record of what was asked.
std::vector<int> g_asked_gpu_types;
int answer_one() {
  return 1;
}
int answer_zero() {
  return 0;
}
int gpu_query(int type, int* supported) {
  g_asked_gpu_types.push_back(type);
  *supported = type == 2 ? 1 : 0;
  return 0;
}

SymbolLookup table(const std::map<std::string, void*>& symbols) {
  return [symbols](const char* name) -> void* {
    const auto it = symbols.find(name);
    return it == symbols.end() ? nullptr : it->second;
  };
}

TEST(MpiIdentity, GpuSupportIsAskedByEachMpisOwnName) {
  // Open MPI 5: cuda and rocm queries.
  auto ompi = table({{"MPIX_Query_cuda_support", reinterpret_cast<void*>(&answer_zero)},
                     {"MPIX_Query_rocm_support", reinterpret_cast<void*>(&answer_one)}});
  EXPECT_FALSE(mpi_reports_gpu_support("cuda", ompi));
  EXPECT_TRUE(mpi_reports_gpu_support("hip", ompi));
  // MPICH >= 4.1: hip query by its name.
  auto mpich = table({{"MPIX_Query_hip_support", reinterpret_cast<void*>(&answer_one)}});
  EXPECT_TRUE(mpi_reports_gpu_support("hip", mpich));
  EXPECT_FALSE(mpi_reports_gpu_support("cuda", mpich));
  // Only the generic MPICH query: type 0 for CUDA, 2 for HIP.
  g_asked_gpu_types.clear();
  auto generic = table({{"MPIX_GPU_query_support", reinterpret_cast<void*>(&gpu_query)}});
  EXPECT_TRUE(mpi_reports_gpu_support("hip", generic));
  EXPECT_FALSE(mpi_reports_gpu_support("cuda", generic));
  EXPECT_EQ(g_asked_gpu_types, (std::vector<int>{2, 0}));
  // Nothing defined, or an unknown runtime: no.
  EXPECT_FALSE(mpi_reports_gpu_support("hip", table({})));
  EXPECT_FALSE(mpi_reports_gpu_support("opencl", ompi));
}

}  // namespace
}  // namespace nbrcoll
