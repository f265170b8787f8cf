/* What graph creation's set-up would cost if it ran before PMPI's creation
 * instead of after it (bench/RESULTS.md, "Graph creation: what overlapping
 * would buy"). Per repetition, three ways, each timed from a barrier, max
 * over ranks, median of 31:
 *   mode 0: PMPI_Dist_graph_create_adjacent of an RSG 0.6 graph alone;
 *   mode 1: then, as nbrcoll does: a message to and from each other rank of
 *           the node (8 ranks a node), W us of CPU work (the plans), and a
 *           114-word MPI_MAX allreduce, all on the new graph;
 *   mode 2: the same steps first, on a duplicate of MPI_COMM_WORLD, with
 *           the allreduce nonblocking, then the creation, then its wait.
 * Argument: W (default 62, the plans' CPU time per rank measured in graph
 * creation). Not built by CMake:
 *   mpicc -O2 ahead.c -o /tmp/ahead
 *   bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- /tmp/ahead 62 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static int cmp(const void *a, const void *b) {
  double x = *(double *)a, y = *(double *)b;
  return x < y ? -1 : x > y;
}
static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static void spin(double us) {
  double t0 = cpu_us();
  while (cpu_us() - t0 < us) {
  }
}
static int r, n, ni, no, *in, *out;
static void node_lists(MPI_Comm c) {
  int base = r / 8 * 8;
  MPI_Request q[16];
  int m = 0;
  static int buf[8][256];
  static int mine[256];
  for (int p = base; p < base + 8 && p < n; p++)
    if (p != r) {
      MPI_Irecv(buf[p - base], 256, MPI_INT, p, 5, c, &q[m++]);
      MPI_Isend(mine, ni + no + 1, MPI_INT, p, 5, c, &q[m++]);
    }
  MPI_Waitall(m, q, MPI_STATUSES_IGNORE);
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double work = argc > 1 ? atof(argv[1]) : 62;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  srand(7);
  in = malloc(sizeof(int) * (size_t)n), out = malloc(sizeof(int) * (size_t)n);
  char *adj = calloc(n * n, 1);
  for (int s = 0; s < n; s++)
    for (int d = 0; d < n; d++)
      if (s != d && rand() % 100 < 60) adj[s * n + d] = 1;
  for (int s = 0; s < n; s++)
    if (adj[s * n + r]) in[ni++] = s;
  for (int d = 0; d < n; d++)
    if (adj[r * n + d]) out[no++] = d;
  enum { reps = 31, modes = 3 };
  double t[modes][reps];
  for (int k = 0; k < reps; k++)
    for (int mode = 0; mode < modes; mode++) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      MPI_Comm g;
      long long v[114] = {0};
      MPI_Request q = MPI_REQUEST_NULL;
      if (mode == 2) {
        node_lists(dup);
        spin(work);
        MPI_Iallreduce(MPI_IN_PLACE, v, 114, MPI_LONG_LONG, MPI_MAX, dup, &q);
      }
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ni, in, MPI_UNWEIGHTED, no, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                     &g);
      if (mode == 1) {
        node_lists(g);
        spin(work);
        MPI_Allreduce(MPI_IN_PLACE, v, 114, MPI_LONG_LONG, MPI_MAX, g);
      }
      if (mode == 2) MPI_Wait(&q, MPI_STATUS_IGNORE);
      double dt = MPI_Wtime() - t0;
      MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      t[mode][k] = dt;
      MPI_Comm_free(&g);
    }
  if (r == 0)
    for (int mode = 0; mode < modes; mode++) {
      qsort(t[mode], reps, sizeof(double), cmp);
      printf("mode %d (%s, work %.0f us): median %.3f ms  [q1 %.3f q3 %.3f]\n", mode,
             mode == 0 ? "PMPI create" : mode == 1 ? "after: lists, work, allreduce" : "ahead: lists, work, iallreduce",
             work, t[mode][reps / 2] * 1e3, t[mode][reps / 4] * 1e3, t[mode][3 * reps / 4] * 1e3);
    }
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
