/* A short-lived graph, as DOLFINx makes dozens: create a distributed graph
 * (3 in- and 3 out-neighbours), two MPI_Neighbor_alltoallv of 1 KiB
 * blocks, free; ROUNDS times (argv[1], default 30). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 30;
  int r = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int in[3], out[3], counts[3], displs[3];
  for (int k = 0; k < 3; ++k) {
    in[k] = (r - k - 1 + p) % p;
    out[k] = (r + k + 1) % p;
    counts[k] = 1024;
    displs[k] = 1024 * k;
  }
  char* send = malloc(3072);
  char* recv = malloc(3072);
  memset(send, r, 3072);
  for (int i = 0; i < rounds; ++i) {
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, MPI_UNWEIGHTED, 3, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    MPI_Neighbor_alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, g);
    MPI_Neighbor_alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, g);
    MPI_Comm_free(&g);
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
