// Valid calls whose two sides differ on a rank, which graphs allow (sizes
// only have to agree along each edge) and Open MPI 4.1.4's own blocking
// collectives get wrong (src/call/pmpi_handoff.h):
// - allgather on a star: the hub (no in-neighbours) passes recvcount 0, the
//   leaves (no out-neighbours) sendcount 0; Open MPI returns at once on
//   either, so its leaves waited for ever;
// - alltoall on the same star, and on a ring whose ranks send 1 or 2 ints
//   by turns (every rank's send and receive sizes differ); Open MPI failed
//   both with MPI_ERR_TRUNCATE.
// Each call blocking, nonblocking (MPI_Ineighbor_*, then MPI_Wait: Open
// MPI's nonblocking alltoall fails the same way, and the ranks it did not
// fail waited for ever) and persistent (MPI 4's, or Open MPI's MPIX_
// extension).
// Run with NBRCOLL_ALGO=native, the calls go to the MPI through nbrcoll's
// hand-off; with the others, through nbrcoll's plans. Every receive area
// against its closed form, with guards on both sides. A hang fails by the
// test's timeout.
#include <mpi.h>

#include <string>
#include <vector>

#include "src/support/persistent_forms.h"
#include "tests/mpi/mpi_check.h"

using nbt::check;
using nbt::g_rank;
using nbt::g_size;

namespace {

constexpr int kGuard = 4;  // ints on each side of a receive area
constexpr int kUntouched = -7;

enum class How { kBlocking, kNonblocking, kPersistent };
const char* name(How how) {
  return how == How::kBlocking ? "blocking" : how == How::kNonblocking ? "nonblocking" : "persistent";
}

// One call made `how`: `blocking()`, or `start(&request)` (the nonblocking
// or the persistent form, the latter started here), waited for, and a
// persistent request freed.
template <class Blocking, class Start>
int made(How how, Blocking blocking, Start start) {
  if (how == How::kBlocking) return blocking();
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = start(&request);
  if (rc == MPI_SUCCESS && how == How::kPersistent) rc = MPI_Start(&request);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&request, MPI_STATUS_IGNORE);
  if (how == How::kPersistent && request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  return rc;
}

// The persistent forms as a program calls them (src/support/persistent_forms.h),
// where the MPI has them (main() asks for them only there).
#if NBRCOLL_PERSISTENT
#define NBT_INIT_OR_FAIL(kind, ...) nbrcoll::program_inits(false).kind(__VA_ARGS__)
#else
#define NBT_INIT_OR_FAIL(kind, ...) MPI_ERR_OTHER
#endif

int allgather(How how, const int* send, int sendcount, int* recv, int recvcount, MPI_Comm g) {
  return made(
      how, [&] { return MPI_Neighbor_allgather(send, sendcount, MPI_INT, recv, recvcount, MPI_INT, g); },
      [&](MPI_Request* r) {
        return how == How::kNonblocking
                   ? MPI_Ineighbor_allgather(send, sendcount, MPI_INT, recv, recvcount, MPI_INT, g, r)
                   : NBT_INIT_OR_FAIL(allgather, send, sendcount, MPI_INT, recv, recvcount, MPI_INT, g, MPI_INFO_NULL,
                                      r);
      });
}

int alltoall(How how, const int* send, int sendcount, int* recv, int recvcount, MPI_Comm g) {
  return made(
      how, [&] { return MPI_Neighbor_alltoall(send, sendcount, MPI_INT, recv, recvcount, MPI_INT, g); },
      [&](MPI_Request* r) {
        return how == How::kNonblocking
                   ? MPI_Ineighbor_alltoall(send, sendcount, MPI_INT, recv, recvcount, MPI_INT, g, r)
                   : NBT_INIT_OR_FAIL(alltoall, send, sendcount, MPI_INT, recv, recvcount, MPI_INT, g, MPI_INFO_NULL,
                                      r);
      });
}

MPI_Comm graph(const std::vector<int>& in, const std::vector<int>& out) {
  MPI_Comm g = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
  return g;
}

// The value of element k of what `from` sends to its out-neighbour number `slot`.
int value(int from, int slot, int k) {
  return 1000 * (from + 1) + 10 * slot + k;
}

// A receive area of `n` ints between guards; `expect` gives element i.
void check_area(const std::vector<int>& area, int n, const std::string& what, const auto& expect) {
  for (int i = 0; i < kGuard; ++i) {
    check(area[static_cast<std::size_t>(i)] == kUntouched, what + ": guard before the area written");
    check(area[static_cast<std::size_t>(kGuard + n + i)] == kUntouched, what + ": guard after the area written");
  }
  for (int i = 0; i < n; ++i)
    check(area[static_cast<std::size_t>(kGuard + i)] == expect(i), what + ": element " + std::to_string(i));
}

// Hub 0 sends to every other rank; nobody sends to the hub.
void star(int round, How how) {
  const bool hub = g_rank == 0;
  std::vector<int> in;
  std::vector<int> out;
  if (hub) {
    for (int r = 1; r < g_size; ++r) out.push_back(r);
  } else {
    in.push_back(0);
  }
  MPI_Comm g = graph(in, out);
  const std::string tag = std::string(" (") + name(how) + ", round " + std::to_string(round) + ")";

  // allgather: 3 ints from the hub; the hub receives 0, the leaves send 0.
  std::vector<int> send(3 * static_cast<std::size_t>(g_size));
  for (std::size_t k = 0; k < send.size(); ++k)
    send[k] = value(g_rank, static_cast<int>(k / 3), static_cast<int>(k % 3));
  std::vector<int> area(2 * kGuard + 3, kUntouched);
  int rc = allgather(how, send.data(), hub ? 3 : 0, area.data() + kGuard, hub ? 0 : 3, g);
  check(rc == MPI_SUCCESS, "star allgather returns MPI_SUCCESS" + tag);
  check_area(area, hub ? 0 : 3, "star allgather" + tag, [](int i) { return value(0, 0, i); });

  // alltoall: 2 ints to each leaf, its own.
  std::vector<int> area2(2 * kGuard + 2, kUntouched);
  rc = alltoall(how, send.data(), hub ? 2 : 0, area2.data() + kGuard, hub ? 0 : 2, g);
  check(rc == MPI_SUCCESS, "star alltoall returns MPI_SUCCESS" + tag);
  // The hub's out-neighbour number s is rank s+1; its 2-int blocks are send[2s], send[2s+1].
  const int s = g_rank - 1;
  check_area(area2, hub ? 0 : 2, "star alltoall" + tag,
             [s](int i) { return value(0, (2 * s + i) / 3, (2 * s + i) % 3); });
  MPI_Comm_free(&g);
}

// Rank r sends width(r) ints to r+1 and receives width(r-1) from r-1.
void uneven_ring(int round, How how) {
  const auto width = [](int r) { return 1 + r % 2; };
  const int left = (g_rank + g_size - 1) % g_size;
  const int right = (g_rank + 1) % g_size;
  MPI_Comm g = graph({left}, {right});
  const std::string tag = std::string(" (") + name(how) + ", round " + std::to_string(round) + ")";
  std::vector<int> send{value(g_rank, 0, 0), value(g_rank, 0, 1)};
  std::vector<int> area(2 * kGuard + 2, kUntouched);
  const int rc = alltoall(how, send.data(), width(g_rank), area.data() + kGuard, width(left), g);
  check(rc == MPI_SUCCESS, "uneven ring alltoall returns MPI_SUCCESS" + tag);
  check_area(area, width(left), "uneven ring alltoall" + tag, [left](int i) { return value(left, 0, i); });
  MPI_Comm_free(&g);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  nbt::begin();
  nbt::expect_interposed({"MPI_Neighbor_allgather", "MPI_Neighbor_alltoall", "MPI_Ineighbor_allgather",
                          "MPI_Ineighbor_alltoall", "MPI_Dist_graph_create_adjacent"});
  std::vector<How> hows{How::kBlocking, How::kNonblocking};
  if (NBRCOLL_PERSISTENT) hows.push_back(How::kPersistent);
  for (int round = 0; round < 3; ++round) {
    for (const How how : hows) {
      star(round, how);
      // An odd ring would give rank 0 and its left neighbour the same width.
      if (g_size % 2 == 0) uneven_ring(round, how);
    }
  }
  return nbt::finish();
}
