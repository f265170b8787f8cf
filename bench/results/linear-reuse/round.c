/* One round as DOLFINx makes many: create a distributed graph (3 in- and 3
 * out-neighbours), two MPI_Neighbor_allgather of 1 KiB, free; 30 rounds.
 * With "new" every round's lists are new (offsets and list orders cycling
 * through 15 or more inputs, more than the 8 plan sets a rank keeps: 8 ranks
 * or more), else the same lists every round. Each step is
 * its own function so that callgrind can count them (round-callgrind.sh). */
#include <mpi.h>
#include <string.h>

static char sbuf[1024], rbuf[3 * 1024];

__attribute__((noinline)) void create(int n, const int *in, const int *out, MPI_Comm *c) {
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, in, MPI_UNWEIGHTED, n, out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, c);
}
__attribute__((noinline)) void first_call(MPI_Comm c) {
  MPI_Neighbor_allgather(sbuf, 1024, MPI_BYTE, rbuf, 1024, MPI_BYTE, c);
}
__attribute__((noinline)) void second_call(MPI_Comm c) {
  MPI_Neighbor_allgather(sbuf, 1024, MPI_BYTE, rbuf, 1024, MPI_BYTE, c);
}
__attribute__((noinline)) void destroy(MPI_Comm *c) { MPI_Comm_free(c); }

static void one_round(int r, int fresh, int rank, int size) {
  int in[3], out[3];
  const int offsets = size > 4 ? size - 3 : 1;
  const int s = fresh ? 1 + r % offsets : 1;
  const int turn = fresh ? r / offsets % 3 : 0; /* the lists' order */
  for (int k = 0; k < 3; ++k) {
    in[(k + turn) % 3] = (rank - k - s + 2 * size) % size;
    out[(k + turn) % 3] = (rank + k + s) % size;
  }
  MPI_Comm c;
  create(3, in, out, &c);
  first_call(c);
  second_call(c);
  destroy(&c);
}

/* Rounds 2 to 29: what callgrind counts with --toggle-collect=warm_rounds
 * (round-callgrind.sh, WARM=1), without the first rounds' one-time costs. */
__attribute__((noinline)) void warm_rounds(int fresh, int rank, int size) {
  for (int r = 2; r < 30; ++r) one_round(r, fresh, rank, size);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int fresh = argc > 1 && strcmp(argv[1], "new") == 0;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int r = 0; r < 2; ++r) one_round(r, fresh, rank, size);
  warm_rounds(fresh, rank, size);
  MPI_Finalize();
  return 0;
}
