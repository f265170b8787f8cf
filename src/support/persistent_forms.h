// Which persistent neighborhood collectives the MPI has, for the library,
// its tests and the benchmarks alike:
//   NBRCOLL_MPI4_PERSISTENT  1 where the MPI is version 4 (MPICH 4):
//                            MPI_Neighbor_*_init
//   NBRCOLL_MPIX_PERSISTENT  1 where the MPI has Open MPI's persistent
//                            collectives extension ("pcollreq", <mpi-ext.h>,
//                            OMPI_HAVE_MPI_EXT_PCOLLREQ; Open MPI 4.1 is
//                            MPI 3.1 and has only these): MPIX_Neighbor_*_init,
//                            the same arguments as MPI 4's
//   NBRCOLL_PERSISTENT       1 where either: nbrcoll takes persistent calls
//                            (and MPI_Start / MPI_Startall)
// MPICH has no <mpi-ext.h>; the header is read only under Open MPI.
//
// In C++, the five init functions of one form in a table (NeighborInits), so
// that code which calls them through MPI_, PMPI_, MPIX_ or PMPIX_ is written
// once.
#pragma once

#include <mpi.h>

#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#if MPI_VERSION >= 4
#define NBRCOLL_MPI4_PERSISTENT 1
#else
#define NBRCOLL_MPI4_PERSISTENT 0
#endif
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define NBRCOLL_MPIX_PERSISTENT 1
#else
#define NBRCOLL_MPIX_PERSISTENT 0
#endif
#if NBRCOLL_MPI4_PERSISTENT || NBRCOLL_MPIX_PERSISTENT
#define NBRCOLL_PERSISTENT 1
#else
#define NBRCOLL_PERSISTENT 0
#endif

#if defined(__cplusplus) && NBRCOLL_PERSISTENT
namespace nbrcoll {

// MPI_Neighbor_<kind>_init of one form; `prefix` names it ("MPI_", "PMPIX_", ...).
struct NeighborInits {
  const char* prefix;
  int (*allgather)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Info, MPI_Request*);
  int (*allgatherv)(const void*, int, MPI_Datatype, void*, const int[], const int[], MPI_Datatype, MPI_Comm, MPI_Info,
                    MPI_Request*);
  int (*alltoall)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm, MPI_Info, MPI_Request*);
  int (*alltoallv)(const void*, const int[], const int[], MPI_Datatype, void*, const int[], const int[], MPI_Datatype,
                   MPI_Comm, MPI_Info, MPI_Request*);
  int (*alltoallw)(const void*, const int[], const MPI_Aint[], const MPI_Datatype[], void*, const int[],
                   const MPI_Aint[], const MPI_Datatype[], MPI_Comm, MPI_Info, MPI_Request*);
};

#if NBRCOLL_MPI4_PERSISTENT
inline constexpr NeighborInits kMpiInits{"MPI_",
                                         MPI_Neighbor_allgather_init,
                                         MPI_Neighbor_allgatherv_init,
                                         MPI_Neighbor_alltoall_init,
                                         MPI_Neighbor_alltoallv_init,
                                         MPI_Neighbor_alltoallw_init};
inline constexpr NeighborInits kPmpiInits{"PMPI_",
                                          PMPI_Neighbor_allgather_init,
                                          PMPI_Neighbor_allgatherv_init,
                                          PMPI_Neighbor_alltoall_init,
                                          PMPI_Neighbor_alltoallv_init,
                                          PMPI_Neighbor_alltoallw_init};
#endif
#if NBRCOLL_MPIX_PERSISTENT
inline constexpr NeighborInits kMpixInits{"MPIX_",
                                          MPIX_Neighbor_allgather_init,
                                          MPIX_Neighbor_allgatherv_init,
                                          MPIX_Neighbor_alltoall_init,
                                          MPIX_Neighbor_alltoallv_init,
                                          MPIX_Neighbor_alltoallw_init};
inline constexpr NeighborInits kPmpixInits{"PMPIX_",
                                           PMPIX_Neighbor_allgather_init,
                                           PMPIX_Neighbor_allgatherv_init,
                                           PMPIX_Neighbor_alltoall_init,
                                           PMPIX_Neighbor_alltoallv_init,
                                           PMPIX_Neighbor_alltoallw_init};
#endif

// The MPI's own form (PMPI_ or PMPIX_) of a call made through MPIX_ (`mpix`)
// or MPI_.
inline const NeighborInits& profiling_inits([[maybe_unused]] bool mpix) {
#if NBRCOLL_MPIX_PERSISTENT && NBRCOLL_MPI4_PERSISTENT
  return mpix ? kPmpixInits : kPmpiInits;
#elif NBRCOLL_MPIX_PERSISTENT
  return kPmpixInits;
#else
  return kPmpiInits;
#endif
}

// What a program calls (MPI 4's names where the MPI has them, else Open MPI's
// MPIX_ ones), or with `profiling` the MPI's own form of the same.
inline const NeighborInits& program_inits(bool profiling) {
#if NBRCOLL_MPI4_PERSISTENT
  return profiling ? kPmpiInits : kMpiInits;
#else
  return profiling ? kPmpixInits : kMpixInits;
#endif
}

}  // namespace nbrcoll
#endif
