// The run report (NBRCOLL_REPORT, src/report/): a program whose calls are
// known makes them, and with NBRCOLL_REPORT=<file> world rank 0 reads the
// report after MPI_Finalize and checks every count in it exactly:
// - 3 graphs per rank: a ring (MPI_Dist_graph_create_adjacent), the ring
//   reversed (MPI_Dist_graph_create) and a periodic 1-D grid (MPI_Cart_create);
// - on the ring 5 blocking allgathers of 1 KiB, 4 nonblocking alltoallv of
//   256 B per edge in flight together, and where the MPI has persistent
//   collectives (MPI 4's, Open MPI's MPIX_) a persistent allgatherv of 64 B
//   started 3 times; on the reversed ring 2 blocking
//   alltoall of 128 B per edge;
// - one allgather with a negative count, which nbrcoll hands to the MPI
//   ("an argument error") and the MPI refuses.
// Counts are summed over ranks; the bytes of one message per edge (the
// linear plan) per link class follow from the ring and the emulated nodes
// (NBRCOLL_RANKS_PER_NODE) whatever the algorithm; under NBRCOLL_ALGO=linear
// the plans sent exactly those, and every call is counted as linear (under
// aggregated, as aggregated). Without NBRCOLL_REPORT, or with 1, it checks
// nothing of the report (ctest checks the output: tests/mpi/CMakeLists.txt).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "src/support/persistent_forms.h"
#include "tests/mpi/mpi_check.h"
#include "tests/mpi/report_file.h"

using nbt::check;
using nbt::numbers_after;
using nbt::report_file;
using nbt::report_lines;
using nbt::g_rank;
using nbt::g_size;

namespace {

constexpr int kAllgathers = 5;
constexpr int kAllgatherInts = 256;  // 1 KiB
constexpr int kAlltoallvs = 4;
constexpr int kAlltoallvInts = 64;
constexpr int kAlltoalls = 2;
constexpr int kAlltoallInts = 32;
constexpr int kPersistentStarts = 3;
constexpr int kAllgathervInts = 16;
constexpr int kGraphs = 3;

int left_of(int r) {
  return (r + g_size - 1) % g_size;
}
int right_of(int r) {
  return (r + 1) % g_size;
}

// The emulated node of world rank r (NBRCOLL_RANKS_PER_NODE, else one node).
int node_of(int r) {
  const char* k = std::getenv("NBRCOLL_RANKS_PER_NODE");
  const int per_node = k != nullptr ? std::atoi(k) : 0;
  return per_node > 0 ? r / per_node : 0;
}

// What the report must say, summed over ranks.
struct Expected {
  long calls[5][3] = {};  // kind x mode, as the report's table
  long handoffs = 0;
  long graphs = 0;
  long network = 0;    // bytes of one message per edge between nodes
  long same_node = 0;  // and inside nodes
};

// Every rank's out-edges of the ring (left, right), `bytes` each, `calls` times.
void add_ring_bytes(Expected& e, long calls, long bytes) {
  for (int r = 0; r < g_size; ++r) {
    for (const int peer : {left_of(r), right_of(r)}) {
      if (peer == r) continue;  // a self edge is a local copy, no message
      (node_of(peer) == node_of(r) ? e.same_node : e.network) += calls * bytes;
    }
  }
}

Expected expected() {
  Expected e;
  e.calls[0][0] = 2L * kAllgathers * g_size;  // twice on the ring
  e.calls[3][1] = static_cast<long>(kAlltoallvs) * g_size;
  e.calls[2][0] = 2L * kAlltoalls * g_size;  // the ring and the reversed ring
  add_ring_bytes(e, 2L * kAllgathers, kAllgatherInts * 4);
  add_ring_bytes(e, kAlltoallvs, kAlltoallvInts * 4);
  add_ring_bytes(e, 2L * kAlltoalls, kAlltoallInts * 4);
#if NBRCOLL_PERSISTENT
  e.calls[1][2] = static_cast<long>(kPersistentStarts) * g_size;
  add_ring_bytes(e, kPersistentStarts, kAllgathervInts * 4);
#endif
  e.handoffs = g_size;
  e.graphs = static_cast<long>(kGraphs) * g_size;
  return e;
}

MPI_Comm ring() {
  const int peers[2] = {left_of(g_rank), right_of(g_rank)};
  MPI_Comm g = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, peers, MPI_UNWEIGHTED, 2, peers, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &g);
  return g;
}

// The same edges, each rank naming its own out-edges (right, then left).
MPI_Comm reversed_ring() {
  const int source = g_rank;
  const int degree = 2;
  const int peers[2] = {right_of(g_rank), left_of(g_rank)};
  MPI_Comm g = MPI_COMM_NULL;
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, peers, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  return g;
}

// The in-list of `g`, as the MPI orders it.
std::vector<int> sources_of(MPI_Comm g) {
  int in = 0;
  int out = 0;
  int weighted = 0;
  MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
  std::vector<int> s(static_cast<std::size_t>(in));
  std::vector<int> d(static_cast<std::size_t>(out));
  MPI_Dist_graph_neighbors(g, in, s.data(), MPI_UNWEIGHTED, out, d.data(), MPI_UNWEIGHTED);
  return s;
}

void allgathers(MPI_Comm g) {
  const std::vector<int> in = sources_of(g);
  for (int i = 0; i < kAllgathers; ++i) {
    std::vector<int> send(kAllgatherInts, g_rank * 100 + i);
    std::vector<int> recv(in.size() * kAllgatherInts, -1);
    check(MPI_Neighbor_allgather(send.data(), kAllgatherInts, MPI_INT, recv.data(), kAllgatherInts, MPI_INT, g) ==
              MPI_SUCCESS,
          "allgather");
    for (std::size_t k = 0; k < in.size(); ++k)
      check(recv[k * kAllgatherInts] == in[k] * 100 + i && recv[(k + 1) * kAllgatherInts - 1] == in[k] * 100 + i,
            "allgather block " + std::to_string(k));
  }
}

void alltoallvs(MPI_Comm g) {
  const std::vector<int> counts(2, kAlltoallvInts);
  const std::vector<int> displs = {0, kAlltoallvInts};
  std::vector<std::vector<int>> send(kAlltoallvs, std::vector<int>(2 * kAlltoallvInts, g_rank));
  std::vector<std::vector<int>> recv(kAlltoallvs, std::vector<int>(2 * kAlltoallvInts, -1));
  std::vector<MPI_Request> requests(kAlltoallvs, MPI_REQUEST_NULL);
  for (int i = 0; i < kAlltoallvs; ++i) {
    check(MPI_Ineighbor_alltoallv(send[i].data(), counts.data(), displs.data(), MPI_INT, recv[i].data(), counts.data(),
                                  displs.data(), MPI_INT, g, &requests[i]) == MPI_SUCCESS,
          "ineighbor_alltoallv");
  }
  check(MPI_Waitall(kAlltoallvs, requests.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
  const std::vector<int> in = sources_of(g);
  for (const auto& r : recv) check(r[0] == in[0] && r[2 * kAlltoallvInts - 1] == in[1], "alltoallv blocks");
}

void alltoalls(MPI_Comm g) {
  for (int i = 0; i < kAlltoalls; ++i) {
    std::vector<int> send(2 * kAlltoallInts, g_rank);
    std::vector<int> recv(2 * kAlltoallInts, -1);
    check(MPI_Neighbor_alltoall(send.data(), kAlltoallInts, MPI_INT, recv.data(), kAlltoallInts, MPI_INT, g) ==
              MPI_SUCCESS,
          "alltoall");
  }
}

void persistent_allgathervs([[maybe_unused]] MPI_Comm g) {
#if NBRCOLL_PERSISTENT
  const std::vector<int> counts(2, kAllgathervInts);
  const std::vector<int> displs = {0, kAllgathervInts};
  std::vector<int> send(kAllgathervInts, g_rank);
  std::vector<int> recv(2 * kAllgathervInts, -1);
  MPI_Request request = MPI_REQUEST_NULL;
  check(nbrcoll::program_inits(false).allgatherv(send.data(), kAllgathervInts, MPI_INT, recv.data(), counts.data(),
                                                 displs.data(), MPI_INT, g, MPI_INFO_NULL, &request) == MPI_SUCCESS,
        "allgatherv_init");
  for (int i = 0; i < kPersistentStarts; ++i) {
    check(MPI_Start(&request) == MPI_SUCCESS && MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS, "start");
  }
  MPI_Request_free(&request);
#endif
}

// The first number of the line that contains `text` (a hand-off's count).
long count_of_line_with(const std::vector<std::string>& lines, const std::string& text) {
  for (const std::string& l : lines) {
    if (l.find(text) != std::string::npos) return std::strtol(l.c_str(), nullptr, 10);
  }
  check(false, "a report line with '" + text + "'");
  return -1;
}

void check_number(const std::vector<long>& got, std::size_t i, long want, const std::string& what) {
  check(i < got.size() && got[i] == want,
        what + ": want " + std::to_string(want) + ", got " + (i < got.size() ? std::to_string(got[i]) : "none"));
}

void check_report(const char* path, const Expected& e) {
  const std::vector<std::string> lines = report_lines(path);
  check(!lines.empty(), std::string("the report file ") + path);
  if (lines.empty()) return;
  for (const std::string& l : lines) std::printf("%s\n", l.c_str());
  const char* kinds[5] = {"allgather ", "allgatherv ", "alltoall ", "alltoallv ", "alltoallw "};
  long total = 0;
  for (int k = 0; k < 5; ++k) {
    const std::vector<long> row = numbers_after(lines, kinds[k]);
    for (int m = 0; m < 3; ++m) {
      check_number(row, static_cast<std::size_t>(m), e.calls[k][m],
                   std::string(kinds[k]) + "calls, mode " + std::to_string(m));
      total += e.calls[k][m];
    }
  }
  // calls by plan: linear N, leader N, aggregated N, mixed N
  const std::vector<long> plans = numbers_after(lines, "calls by plan:");
  const char* algo = std::getenv("NBRCOLL_ALGO");
  const std::string a = algo != nullptr ? algo : "auto";
  if (a == "linear" || a == "aggregated") {
    const std::vector<long> want =
        a == "linear" ? std::vector<long>{total, 0, 0, 0} : std::vector<long>{0, 0, total, 0};
    for (std::size_t p = 0; p < 4; ++p) check_number(plans, p, want[p], "calls by plan " + std::to_string(p));
  } else {
    check(plans.size() == 4 && plans[0] + plans[1] + plans[2] + plans[3] == total, "calls by plan add up");
  }
  check_number(numbers_after(lines, "calls handed to the MPI:"), 0, e.handoffs, "hand-offs");
  check_number({count_of_line_with(lines, "an argument error, which the MPI reports")}, 0, e.handoffs,
               "hand-offs for an argument error");
  const std::vector<long> network = numbers_after(lines, "network ");
  const std::vector<long> node = numbers_after(lines, "same node (all but network)");
  check_number(network, 1, e.network, "network bytes of one message per edge");
  check_number(node, 1, e.same_node, "same-node bytes of one message per edge");
  if (a == "linear") {
    check_number(network, 0, e.network, "network bytes of the linear plans");
    check_number(node, 0, e.same_node, "same-node bytes of the linear plans");
  }
  const std::vector<long> graphs = numbers_after(lines, "graphs set up:");
  check_number(graphs, 0, e.graphs, "graphs set up");
  check_number(graphs, 1, kGraphs, "graphs per rank, min");
  check_number(graphs, 2, kGraphs, "graphs per rank, max");
  numbers_after(lines, "time in nbrcoll's calls per rank:");
  numbers_after(lines, "peak RSS per rank (getrusage");
  // Every graph, request and type freed: what stays held is nbrcoll's own
  // communicator (and, under MPI 4, its persistent calls') and its keys.
  const std::string held = nbt::report_line(lines, "MPI handles still held at finalize");
  for (const char* zero : {"requests 0,", "datatypes 0,", "groups 0,", "error handlers 0"})
    check(held.find(zero) != std::string::npos, std::string("held at finalize: ") + zero + " in: " + held);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nbt::begin();
  nbt::expect_interposed({"MPI_Neighbor_allgather", "MPI_Ineighbor_alltoallv", "MPI_Finalize"});
  const char* path = report_file();
  if (g_rank == 0 && path != nullptr) std::remove(path);  // a report of an earlier run
  MPI_Comm g = ring();
  MPI_Comm reversed = reversed_ring();
  MPI_Comm grid = MPI_COMM_NULL;
  const int dims[1] = {g_size};
  const int periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &grid);

  // Blocking calls of two sizes in turn on one handle, each repeated: the
  // bytes of each are counted, not those of the one before.
  allgathers(g);
  alltoalls(g);
  allgathers(g);
  alltoallvs(g);
  persistent_allgathervs(g);
  alltoalls(reversed);
  // Handed to the MPI, which reports the negative count.
  int one = 0;
  check(MPI_Neighbor_allgather(&one, -1, MPI_INT, &one, 1, MPI_INT, g) != MPI_SUCCESS, "a negative count fails");

  MPI_Comm_free(&grid);
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&g);
  long totals[2] = {nbt::g_checks.load(), nbt::g_failures.load()};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const Expected e = expected();
  MPI_Finalize();
  if (g_rank != 0) return totals[1] == 0 ? 0 : 1;
  // The report is written inside MPI_Finalize: read it now.
  if (path != nullptr) {
    const long before = nbt::g_failures.load();
    check_report(path, e);
    totals[1] += nbt::g_failures.load() - before;
  }
  std::printf("%ld failed\n", totals[1]);
  return totals[1] == 0 ? 0 : 1;
}
