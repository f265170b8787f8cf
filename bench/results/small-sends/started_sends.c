// Two ranks exchange one message of N doubles each way, four ways
// alternating round by round: both posted (MPI_Irecv + MPI_Isend), both
// started persistent requests, a started receive with a posted send, and a
// posted receive with a started send. Prints each way's median and 10th
// percentile round time (20000 rounds after 200 warm-up rounds).
//   mpicc -O2 started_sends.c -o started_sends && mpirun -np 2 ./started_sends N
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kRounds = 20000, kWarmup = 200, kWays = 4 };
static double t[kWays][kRounds];

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = argc > 1 ? atoi(argv[1]) : 16;
  static double send[4096], recv[4096];
  const int peer = 1 - rank;
  MPI_Request kept[2];
  MPI_Recv_init(recv, n, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &kept[0]);
  MPI_Send_init(send, n, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &kept[1]);
  for (int k = 0; k < kRounds + kWarmup; ++k) {
    for (int v = 0; v < kWays; ++v) {
      const int way = (v + k) % kWays;
      MPI_Request r[2];
      const double t0 = MPI_Wtime();
      if (way == 0) {
        MPI_Irecv(recv, n, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(send, n, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      } else if (way == 1) {
        MPI_Startall(2, kept);
        MPI_Waitall(2, kept, MPI_STATUSES_IGNORE);
      } else if (way == 2) {
        MPI_Start(&kept[0]);
        r[0] = kept[0];
        MPI_Isend(send, n, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      } else {
        MPI_Irecv(recv, n, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &r[0]);
        MPI_Start(&kept[1]);
        r[1] = kept[1];
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      }
      if (k >= kWarmup) t[way][k - kWarmup] = MPI_Wtime() - t0;
    }
  }
  if (rank == 0) {
    const char* names[kWays] = {"posted", "started", "started recv", "started send"};
    for (int w = 0; w < kWays; ++w) {
      qsort(t[w], kRounds, sizeof(double), by_value);
      printf("%4d B  %-13s median %.3f us  p10 %.3f us\n", 8 * n, names[w], t[w][kRounds / 2] * 1e6,
             t[w][kRounds / 10] * 1e6);
    }
  }
  MPI_Request_free(&kept[0]);
  MPI_Request_free(&kept[1]);
  MPI_Finalize();
  return 0;
}
