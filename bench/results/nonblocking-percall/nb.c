/* Issue 29 item 5: what one MPI_Ineighbor_alltoallv + MPI_Wait costs in
 * instructions, 3 in- and 3 out-neighbours (the next three ranks), 1 KiB
 * blocks: 20 warm-up calls, then 200 counted ones (warm_calls, for
 * callgrind's --toggle-collect; nb-callgrind.sh). */
#include <mpi.h>

static char sbuf[3 * 1024], rbuf[3 * 1024];
static int counts[3] = {1024, 1024, 1024}, displs[3] = {0, 1024, 2048};

__attribute__((noinline)) void one_call(MPI_Comm c) {
  MPI_Request r;
  MPI_Ineighbor_alltoallv(sbuf, counts, displs, MPI_BYTE, rbuf, counts, displs, MPI_BYTE, c, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

__attribute__((noinline)) void warm_calls(MPI_Comm c) {
  for (int i = 0; i < 200; ++i) one_call(c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int in[3], out[3];
  for (int k = 0; k < 3; ++k) {
    in[k] = (rank - k - 1 + 2 * size) % size;
    out[k] = (rank + k + 1) % size;
  }
  MPI_Comm c;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, in, MPI_UNWEIGHTED, 3, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  for (int i = 0; i < 20; ++i) one_call(c);
  warm_calls(c);
  MPI_Comm_free(&c);
  MPI_Finalize();
  return 0;
}
