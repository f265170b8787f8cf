/* Per-call cost of nbrcoll's path, counted in instructions: N calls of one
 * neighbourhood collective on a 2-D periodic Moore graph (8 neighbours, r=1)
 * over all ranks of MPI_COMM_WORLD. Run under callgrind by callgrind.sh,
 * which subtracts the MPI's own completion calls, so what remains is the
 * entry point, the decision, the layout and the posting of messages. Rank 0
 * also prints the wall time a call (max over ranks), for A/B runs of two
 * libraries side by side (bench/percall/ab.sh).
 *   loop KIND BYTES CALLS    KIND: allgather | alltoallv | ineighbor_alltoallv | ineighbor_allgather */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrap(int v, int n) {
  return ((v % n) + n) % n;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4) {
    fprintf(stderr, "usage: loop allgather|alltoallv|ineighbor_alltoallv|ineighbor_allgather BYTES CALLS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* kind = argv[1];
  const int bytes = atoi(argv[2]);
  const int calls = atoi(argv[3]);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int x = rank % dims[0], y = rank / dims[0];
  int nbr[8], n = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (dx != 0 || dy != 0) nbr[n++] = wrap(y + dy, dims[1]) * dims[0] + wrap(x + dx, dims[0]);
  MPI_Comm graph;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 8, nbr, MPI_UNWEIGHTED, 8, nbr, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &graph);
  char* send = calloc(8, (size_t)bytes + 1);
  char* recv = calloc(8, (size_t)bytes + 1);
  int counts[8], displs[8];
  for (int i = 0; i < 8; ++i) {
    counts[i] = bytes;
    displs[i] = i * bytes;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int c = 0; c < calls; ++c) {
    if (strcmp(kind, "allgather") == 0) {
      MPI_Neighbor_allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, graph);
    } else if (strcmp(kind, "alltoallv") == 0) {
      MPI_Neighbor_alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, graph);
    } else if (strcmp(kind, "ineighbor_allgather") == 0) {
      MPI_Request r;
      MPI_Ineighbor_allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, graph, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Request r;
      MPI_Ineighbor_alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, graph, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
  }
  double us = (MPI_Wtime() - start) * 1e6 / (calls > 0 ? calls : 1);
  MPI_Allreduce(MPI_IN_PLACE, &us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%s %d B: %.3f us a call (%d calls, max over ranks)\n", kind, bytes, us, calls);
  free(send);
  free(recv);
  MPI_Comm_free(&graph);
  MPI_Finalize();
  return 0;
}
