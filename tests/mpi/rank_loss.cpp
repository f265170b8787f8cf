// A rank that dies: every rank makes blocking neighbor allgathers on a graph
// of every process (each rank's neighbours: all the others), and one rank
// kills itself (SIGKILL) at a chosen call, so that the others are left
// waiting for it inside that call. A plain MPI program: run with libnbrcoll
// preloaded (a forwarding plan: NBRCOLL_ALGO=leader or aggregated on
// emulated nodes) and without it, its launcher must end the job the same
// way and in about the same time (rank_loss.py drives and judges that).
//
//   rank_loss VICTIM CALL [--late SECONDS] [--inside] [--marker WORD]
//
// VICTIM dies at its call number CALL (1-based): before it enters it, or,
// with --inside, SECONDS after it entered it (a thread of its own kills it,
// and rank VICTIM+1 enters that call SECONDS+1 late, so the victim is
// waiting inside the call when it dies). --late SECONDS without --inside:
// the victim sleeps that long before dying, so that the others wait that
// long for a live rank first (the time a watchdog needs to speak). VICTIM
// -1: nobody dies, and the program ends normally. --marker is ignored: it
// only makes the processes' command lines findable (pgrep -f).
// Every call's result is checked against its closed form; rank 0 prints
// "rank_loss: N calls" at the end of a run without a death.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

constexpr int kCalls = 20;
constexpr int kInts = 256;  // 1 KiB blocks

// Says which process dies, and when (rank_loss.py reads it; Hydra names a pid).
[[noreturn]] void die_now(int rank, int call) {
  std::fprintf(stderr, "rank_loss: rank %d (pid %d) dies in call %d\n", rank, static_cast<int>(getpid()), call);
  std::fflush(stdout);
  std::fflush(stderr);
  kill(getpid(), SIGKILL);
  std::abort();  // not reached
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) std::fprintf(stderr, "usage: rank_loss VICTIM CALL [--late SECONDS] [--inside] [--marker WORD]\n");
    MPI_Finalize();
    return 2;
  }
  const int victim = std::atoi(argv[1]);
  const int at_call = std::atoi(argv[2]);
  double late = 0;
  bool inside = false;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "--late") == 0 && i + 1 < argc) late = std::atof(argv[++i]);
    if (std::strcmp(argv[i], "--inside") == 0) inside = true;
  }

  std::vector<int> peers;
  for (int r = 0; r < size; ++r) {
    if (r != rank) peers.push_back(r);
  }
  const int degree = static_cast<int>(peers.size());
  MPI_Comm graph = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, degree, peers.data(), MPI_UNWEIGHTED, degree, peers.data(),
                                 MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
  std::vector<int> send(kInts);
  std::vector<int> recv(static_cast<std::size_t>(degree) * kInts);
  const int late_one = (victim + 1) % size;
  int failures = 0;
  for (int call = 1; call <= kCalls; ++call) {
    if (rank == victim && call == at_call) {
      if (!inside) {
        if (late > 0) std::this_thread::sleep_for(std::chrono::duration<double>(late));
        die_now(rank, call);
      }
      std::thread([late, rank, call] {
        std::this_thread::sleep_for(std::chrono::duration<double>(late));
        die_now(rank, call);
      }).detach();
    }
    if (inside && rank == late_one && rank != victim && call == at_call)
      std::this_thread::sleep_for(std::chrono::duration<double>(late + 1));
    for (int i = 0; i < kInts; ++i) send[static_cast<std::size_t>(i)] = rank * 100000 + call * 1000 + i;
    MPI_Neighbor_allgather(send.data(), kInts, MPI_INT, recv.data(), kInts, MPI_INT, graph);
    for (int k = 0; k < degree; ++k) {
      for (int i = 0; i < kInts; ++i) {
        if (recv[static_cast<std::size_t>(k * kInts + i)] != peers[static_cast<std::size_t>(k)] * 100000 + call * 1000 + i)
          ++failures;
      }
    }
  }
  if (failures != 0) std::fprintf(stderr, "[rank %d] FAIL: %d wrong ints\n", rank, failures);
  MPI_Comm_free(&graph);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) std::printf("rank_loss: %d calls\n", kCalls);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
