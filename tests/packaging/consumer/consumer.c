/* A user's program built against an installed nbrcoll (tests/packaging).
 * One neighbor allgather on a ring; checks the result, that the linked
 * nbrcoll is the installed version, and where MPI_Neighbor_allgather comes
 * from. argv[1]: a string the defining object's path must contain, or
 * "!libmpi" (must not be the MPI's: the static link). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <nbrcoll/nbrcoll.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int src = (rank + size - 1) % size, dst = (rank + 1) % size;
  const int weight = 1;
  MPI_Comm ring;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &weight, 1, &dst, &weight, MPI_INFO_NULL, 0, &ring);
  int send[4], recv[4];
  for (int i = 0; i < 4; ++i) send[i] = 10 * rank + i;
  MPI_Neighbor_allgather(send, 4, MPI_INT, recv, 4, MPI_INT, ring);
  for (int i = 0; i < 4; ++i) bad |= recv[i] != 10 * src + i;

  if (strcmp(nbrcoll_version(), NBRCOLL_VERSION_STRING) != 0) {
    fprintf(stderr, "rank %d: nbrcoll_version() = %s, header says %s\n", rank, nbrcoll_version(),
            NBRCOLL_VERSION_STRING);
    bad = 1;
  }
  Dl_info info;
  memset(&info, 0, sizeof info);
  const char* from = dladdr((void*)&MPI_Neighbor_allgather, &info) && info.dli_fname ? info.dli_fname : "?";
  const char* want = argc > 1 ? argv[1] : "libnbrcoll";
  const int ok = want[0] == '!' ? strstr(from, want + 1) == NULL : strstr(from, want) != NULL;
  if (!ok) {
    fprintf(stderr, "rank %d: MPI_Neighbor_allgather comes from '%s' (wanted '%s')\n", rank, from, want);
    bad = 1;
  }
  printf("rank %d: %s; MPI_Neighbor_allgather from %s; nbrcoll %s\n", rank, bad ? "FAIL" : "ok", from,
         nbrcoll_version());
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return bad;
}
