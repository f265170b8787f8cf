/* Per-call time of a new graph's first blocking calls: how much the call
 * that plans a late-planning graph (src/state/late_plans.h) costs beside
 * its linear calls. Each round creates a distributed graph of every
 * process (Moore 2-D radius 1 on a periodic grid), makes CALLS blocking
 * MPI_Neighbor_alltoallv of BYTES per block back to back (no barrier
 * between them, as a halo loop runs), and frees it. Prints, per call
 * index, the median over rounds of the slowest rank's time in us, and the
 * median total of the CALLS calls.
 *   calls [ROUNDS [CALLS [BYTES]]]     (defaults 15, 12, 1024) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rounds = argc > 1 ? atoi(argv[1]) : 15;
  const int calls = argc > 2 ? atoi(argv[2]) : 12;
  const int bytes = argc > 3 ? atoi(argv[3]) : 1024;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int x = rank % dims[0], y = rank / dims[0];
  int nbrs[8], n = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      if (dx == 0 && dy == 0) continue;
      nbrs[n++] = ((x + dx + dims[0]) % dims[0]) + ((y + dy + dims[1]) % dims[1]) * dims[0];
    }
  char* send = malloc((size_t)n * bytes);
  char* recv = malloc((size_t)n * bytes);
  memset(send, rank, (size_t)n * bytes);
  int counts[8], displs[8];
  for (int i = 0; i < n; ++i) counts[i] = bytes, displs[i] = i * bytes;
  double* t = calloc((size_t)rounds * calls, sizeof *t);
  double* total = calloc((size_t)rounds, sizeof *total);
  double* each = malloc((size_t)calls * sizeof *each);
  for (int r = 0; r < rounds; ++r) {
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, nbrs, MPI_UNWEIGHTED, n, nbrs, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                   0, &g);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int c = 0; c < calls; ++c) {
      const double t0 = MPI_Wtime();
      MPI_Neighbor_alltoallv(send, counts, displs, MPI_BYTE, recv, counts, displs, MPI_BYTE, g);
      each[c] = 1e6 * (MPI_Wtime() - t0);
    }
    double mine_total = 1e6 * (MPI_Wtime() - start);
    MPI_Reduce(rank ? each : MPI_IN_PLACE, each, calls, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(rank ? &mine_total : MPI_IN_PLACE, &mine_total, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int c = 0; c < calls; ++c) t[c * rounds + r] = each[c];
    total[r] = mine_total;
    MPI_Comm_free(&g);
  }
  if (rank == 0) {
    printf("call");
    for (int c = 0; c < calls; ++c) printf(" %d", c + 1);
    printf(" total\nus");
    for (int c = 0; c < calls; ++c) printf(" %.0f", median(&t[c * rounds], rounds));
    printf(" %.0f\n", median(total, rounds));
  }
  free(send), free(recv), free(t), free(total), free(each);
  MPI_Finalize();
  return 0;
}
