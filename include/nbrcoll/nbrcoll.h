/* nbrcoll: topology-aware MPI neighborhood collectives.
 *
 * Applications need no header: nbrcoll replaces the neighborhood
 * collectives (allgather(v), alltoall(v); blocking, nonblocking, persistent)
 * through the PMPI interface (LD_PRELOAD=libnbrcoll.so, or link -lnbrcoll
 * before -lmpi). This header gives the version for build systems (and
 * nbrcoll_version(), the version of the library actually loaded) and the
 * names of the environment variables that configure it. */
#ifndef NBRCOLL_NBRCOLL_H
#define NBRCOLL_NBRCOLL_H

#define NBRCOLL_VERSION_MAJOR 0
#define NBRCOLL_VERSION_MINOR 1
#define NBRCOLL_VERSION_PATCH 0
#define NBRCOLL_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif
/* The loaded library's version, "MAJOR.MINOR.PATCH" (NBRCOLL_VERSION_STRING
 * of the build it came from). The only symbol libnbrcoll exports besides the
 * MPI functions it takes. */
const char* nbrcoll_version(void);
#ifdef __cplusplus
}
#endif

/* Environment variables read once, at the first graph creation. */
#define NBRCOLL_ENV_ALGO "NBRCOLL_ALGO"                     /* auto|leader|linear|native */
#define NBRCOLL_ENV_THRESHOLD "NBRCOLL_THRESHOLD"           /* bytes per block; auto below: linear */
#define NBRCOLL_ENV_TOPO "NBRCOLL_TOPO"                     /* auto|flat|model|file */
#define NBRCOLL_ENV_RANKS_PER_NODE "NBRCOLL_RANKS_PER_NODE" /* emulated nodes */
#define NBRCOLL_ENV_WATCHDOG "NBRCOLL_WATCHDOG"             /* seconds: report calls that run longer */
#define NBRCOLL_ENV_DEBUG "NBRCOLL_DEBUG"                   /* none|warn|info|trace */
#define NBRCOLL_ENV_DISABLE "NBRCOLL_DISABLE"               /* 1: everything to PMPI */
#define NBRCOLL_ENV_DEVICE_MAP "NBRCOLL_DEVICE_MAP"         /* local rank -> device list */
#define NBRCOLL_ENV_REPORT "NBRCOLL_REPORT"                 /* 1|file: a run report at MPI_Finalize */

#endif
