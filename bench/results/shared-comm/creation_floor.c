/* What graph creation's messages cost on their own, without nbrcoll's local
 * work: PMPI_Dist_graph_create_adjacent of an RSG 0.6 graph (16 ranks), then
 * (mode 1) one MPI_MAX allreduce of 114 int64 on the new graph, then (mode 2)
 * also one message to and from each of the 7 other ranks of its node (8 ranks
 * a node), as nbrcoll's set-up makes them. Median of 21, max over ranks.
 * Not built by CMake; bench/RESULTS.md, "Graph creation on the shared
 * communicator", has the command and what it showed:
 *   mpicc -O2 creation_floor.c -o /tmp/creation_floor
 *   bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- /tmp/creation_floor
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) {
  double x = *(double *)a, y = *(double *)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  srand(7);
  int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n), ni = 0, no = 0;
  char *adj = calloc(n * n, 1);
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (s != d && rand() % 100 < 60) adj[s * n + d] = 1;
  for (int s = 0; s < n; s++)
    if (adj[s * n + r]) in[ni++] = s;
  for (int d = 0; d < n; d++)
    if (adj[r * n + d]) out[no++] = d;
  const int reps = 21;
  double t[3][21];
  for (int mode = 0; mode < 3; mode++)
    for (int k = 0; k < reps; k++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Comm g;
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ni, in, MPI_UNWEIGHTED, no, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                     &g);
      if (mode >= 2) { /* node peers: 8 per node */
        int base = r / 8 * 8;
        MPI_Request q[16];
        int m = 0;
        int buf[8][128];
        int mine[128] = {0};
        for (int p = base; p < base + 8; p++)
          if (p != r) {
            MPI_Irecv(buf[p - base], 128, MPI_INT, p, 5, g, &q[m++]);
            MPI_Isend(mine, ni + no + 1, MPI_INT, p, 5, g, &q[m++]);
          }
        MPI_Waitall(m, q, MPI_STATUSES_IGNORE);
      }
      if (mode >= 1) {
        long long v[114] = {0};
        MPI_Allreduce(MPI_IN_PLACE, v, 114, MPI_LONG_LONG, MPI_MAX, g);
      }
      double dt = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      t[mode][k] = dt;
      MPI_Comm_free(&g);
    }
  if (r == 0)
    for (int mode = 0; mode < 3; mode++) {
      qsort(t[mode], reps, sizeof(double), cmp);
      printf("mode %d (%s): median %.3f ms\n", mode,
             mode == 0   ? "PMPI create"
             : mode == 1 ? "+allreduce"
                         : "+node lists+allreduce",
             t[mode][reps / 2] * 1e3);
    }
  MPI_Finalize();
  return 0;
}
