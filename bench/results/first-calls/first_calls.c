/* Per-call time of a process's first calls on a plan: does a plan's first
 * call in a process cost more than the same plan's first call on a later
 * graph, and why. Creates GRAPHS distributed graphs of every process in
 * turn (Moore 2-D radius 1 on a periodic grid, the same graph each time),
 * makes CALLS blocking MPI_Neighbor_allgather of BYTES a block on each, a
 * barrier before every call, and frees it. With the environment variable
 * FIRST_GRAPH_PMPI set, graph 0's calls go to PMPI_Neighbor_allgather, the
 * MPI's own messages to the graph's neighbours (as a benchmark's native
 * cells run before nbrcoll's). Prints per graph the slowest rank's first
 * call, the median of its calls 2-6 and the median of calls 11 on, in us.
 *   first_calls [GRAPHS [CALLS [BYTES]]]     (defaults 2, 30, 1024) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(const double* v, int n) {
  double* s = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) s[i] = v[i];
  qsort(s, (size_t)n, sizeof(double), cmp);
  const double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int graphs = argc > 1 ? atoi(argv[1]) : 2;
  const int calls = argc > 2 ? atoi(argv[2]) : 30;
  const int bytes = argc > 3 ? atoi(argv[3]) : 1024;
  if (calls < 12 || graphs < 1 || bytes < 1) {
    if (!rank) fprintf(stderr, "first_calls: want GRAPHS >= 1, CALLS >= 12, BYTES >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int row = rank / dims[1], col = rank % dims[1];
  int nb[8], n = 0;
  for (int dr = -1; dr <= 1; ++dr)
    for (int dc = -1; dc <= 1; ++dc)
      if (dr || dc) nb[n++] = ((row + dr + dims[0]) % dims[0]) * dims[1] + (col + dc + dims[1]) % dims[1];
  char* sb = malloc((size_t)bytes);
  char* rb = malloc((size_t)bytes * (size_t)n);
  double* t = malloc(sizeof(double) * (size_t)calls);
  double* mx = malloc(sizeof(double) * (size_t)calls);
  for (int i = 0; i < bytes; ++i) sb[i] = (char)rank;
  for (int g = 0; g < graphs; ++g) {
    MPI_Comm gc;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, nb, MPI_UNWEIGHTED, n, nb, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &gc);
    const int native = g == 0 && getenv("FIRST_GRAPH_PMPI");
    for (int i = 0; i < calls; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      if (native)
        PMPI_Neighbor_allgather(sb, bytes, MPI_CHAR, rb, bytes, MPI_CHAR, gc);
      else
        MPI_Neighbor_allgather(sb, bytes, MPI_CHAR, rb, bytes, MPI_CHAR, gc);
      t[i] = (MPI_Wtime() - t0) * 1e6;
    }
    for (int k = 0; k < n; ++k)
      if (rb[(size_t)k * (size_t)bytes] != (char)nb[k]) {
        fprintf(stderr, "first_calls: rank %d got a wrong block from %d\n", rank, nb[k]);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    MPI_Reduce(t, mx, calls, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!rank)
      printf("graph %d%s: first %.0f, calls 2-6 %.0f, calls 11+ %.0f\n", g, native ? " (MPI's own)" : "", mx[0],
             median(mx + 1, 5), median(mx + 10, calls - 10));
    MPI_Comm_free(&gc);
  }
  free(sb);
  free(rb);
  free(t);
  free(mx);
  MPI_Finalize();
  return 0;
}
