// What the MPI test programs share around their checks: rank and size,
// counted checks (thread-safe), the per-symbol interposition check
// (EXPECT_NBRCOLL=1), which MPI this is, and the start and end of main().
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/interposed.h"

namespace nbt {

inline int g_rank = 0;
inline int g_size = 1;
inline std::atomic<long> g_checks{0};
inline std::atomic<long> g_failures{0};

inline void check(bool ok, const std::string& what) {
  ++g_checks;
  if (!ok && ++g_failures <= 20) std::fprintf(stderr, "[rank %d] FAIL: %s\n", g_rank, what.c_str());
}

inline int error_class(int rc) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  return cls;
}

inline bool library_is(const char* prefix) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  return std::strstr(version, prefix) != nullptr;
}

inline bool open_mpi_41() {
  return library_is("Open MPI v4.1");
}
inline bool mpich_40() {
  return library_is("MPICH Version:\t4.0");
}

// EXPECT_NBRCOLL=1: each named symbol must resolve into libnbrcoll (one check
// per symbol, on rank 0, so that each missing one is named).
inline void expect_interposed(const std::vector<std::string>& symbols) {
  const char* want = std::getenv("EXPECT_NBRCOLL");
  if (g_rank != 0 || want == nullptr || std::strcmp(want, "1") != 0) return;
  for (const std::string& s : symbols) check(interposed(s.c_str()), s + " resolves to " + resolved_library(s.c_str()));
}

// Calls `test(&flag)` until it sets the flag or fails (a failing test call
// must not spin forever); its last return code.
template <class Test>
int until_flag(Test test) {
  int flag = 0;
  int rc = MPI_SUCCESS;
  while (rc == MPI_SUCCESS && flag == 0) rc = test(&flag);
  return rc;
}

// Wrong bytes of a receive area of guarded blocks: block k (counts[k]
// bytes at displs[k]) against expected(k, i), every byte outside the
// blocks against `guard`.
template <class Expected>
int wrong_guarded_bytes(const std::vector<unsigned char>& recv, const std::vector<int>& counts,
                        const std::vector<int>& displs, unsigned char guard, Expected expected) {
  std::vector<char> is_block(recv.size(), 0);
  int bad = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    for (int i = 0; i < counts[k]; ++i) {
      const auto at = static_cast<std::size_t>(displs[k] + i);
      is_block[at] = 1;
      if (recv[at] != expected(k, i)) ++bad;
    }
  }
  for (std::size_t i = 0; i < recv.size(); ++i)
    if (is_block[i] == 0 && recv[i] != guard) ++bad;
  return bad;
}

// After MPI_Init: rank and size; errors return (graph communicators inherit
// it), so that a failing or erroneous call can be checked and compared.
inline void begin() {
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

// Frees `types`, sums the checks over all ranks (rank 0 prints the totals),
// finalizes; the exit status. A run that made no check at all fails: a
// case list emptied by mistake must not read as a pass.
inline int finish(std::vector<MPI_Datatype> types = {}) {
  for (MPI_Datatype& t : types) MPI_Type_free(&t);
  long totals[2] = {g_checks.load(), g_failures.load()};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) {
    std::printf("%ld passed, %ld failed\n", totals[0] - totals[1], totals[1]);
    if (totals[0] == 0) std::printf("FAIL: no check ran\n");
  }
  MPI_Finalize();
  return totals[1] == 0 && totals[0] > 0 ? 0 : 1;
}

}  // namespace nbt
