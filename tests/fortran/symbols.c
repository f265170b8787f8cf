// Where the Fortran entry points of a test program lead (EXPECT_NBRCOLL=1):
// called from nbr_fortran.F90 (built with its NBR_PERSISTENT and NBR_MPIX).
// For each call nbrcoll takes, the symbol the program's binding calls (the
// persistent collectives under NBR_MPIX: mpix_) must be nbrcoll's own, or,
// where the MPI's own Fortran routine calls the C MPI_ name (MPICH's use
// mpi_f08 routines with a choice buffer, *_f08ts_), the MPI's with the C
// name nbrcoll's. One line per symbol; returns the number of symbols that
// lead elsewhere.
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char* library_of(const char* symbol) {
  Dl_info info;
  void* address = dlsym(RTLD_DEFAULT, symbol);
  if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL) return "(not found)";
  return info.dli_fname;
}

static int in_nbrcoll(const char* library) {
  return strstr(library, "nbrcoll") != NULL;
}

// want_nbrcoll: 1 the symbol must be nbrcoll's, 0 it must be the MPI's.
static int check(const char* symbol, int want_nbrcoll) {
  const char* library = library_of(symbol);
  const int ok = strcmp(library, "(not found)") != 0 && in_nbrcoll(library) == want_nbrcoll;
  printf("%s: %s -> %s\n", ok ? "ok" : "FAIL", symbol, library);
  return ok ? 0 : 1;
}

// binding: 1 mpif.h or use mpi, 2 use mpi_f08.
int nbr_check_symbols(int binding) {
  static const char* const calls[] = {
    "Init",
    "Init_thread",
    "Finalize",
    "Dist_graph_create_adjacent",
    "Dist_graph_create",
    "Cart_create",
    "Cart_sub",
    "Graph_create",
    "Neighbor_allgather",
    "Neighbor_allgatherv",
    "Neighbor_alltoall",
    "Neighbor_alltoallv",
    "Neighbor_alltoallw",
    "Ineighbor_allgather",
    "Ineighbor_allgatherv",
    "Ineighbor_alltoall",
    "Ineighbor_alltoallv",
    "Ineighbor_alltoallw",
#if defined(NBR_PERSISTENT)
    "Neighbor_allgather_init",
    "Neighbor_allgatherv_init",
    "Neighbor_alltoall_init",
    "Neighbor_alltoallv_init",
    "Neighbor_alltoallw_init",
    "Start",
    "Startall",
#endif
    "Wait",
    "Waitall",
    "Waitany",
    "Waitsome",
    "Test",
    "Testall",
    "Testany",
    "Testsome",
    "Request_get_status",
    "Request_free",
    "Cancel"
  };
  int failed = 0;
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; ++i) {
    char lower[64], fortran[80], c_name[80];
    size_t n = 0;
    for (; calls[i][n] != '\0' && n + 1 < sizeof lower; ++n) lower[n] = (char)tolower((unsigned char)calls[i][n]);
    lower[n] = '\0';
    const int buffer = strstr(calls[i], "eighbor_") != NULL;
    // The persistent collectives of Open MPI's extension are MPIX_, mpix_.
#if defined(NBR_MPIX)
    const int mpix = strstr(calls[i], "_init") != NULL;
#else
    const int mpix = 0;
#endif
    const char* prefix = mpix ? "mpix" : "mpi";
    snprintf(c_name, sizeof c_name, "%s_%s", mpix ? "MPIX" : "MPI", calls[i]);
#if defined(MPICH_VERSION)
    if (binding == 2 && buffer) {
      snprintf(fortran, sizeof fortran, "mpi_%s_f08ts_", lower);
      failed += check(fortran, 0);
      failed += check(c_name, 1);
      continue;
    }
    snprintf(fortran, sizeof fortran, binding == 2 ? "%s_%s_f08_" : "%s_%s_", prefix, lower);
    failed += check(fortran, 1);
#else
    (void)buffer;
    (void)c_name;
    snprintf(fortran, sizeof fortran, binding == 2 ? "%s_%s_f08_" : "%s_%s_", prefix, lower);
    failed += check(fortran, 1);
#endif
  }
  fflush(stdout);
  return failed;
}
