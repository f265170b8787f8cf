// A rank that forwards and blocks in an MPI call nbrcoll does not see
// (NBRCOLL_PROGRESS=mpi, src/call/mpi_progress_hook.h).
//
// Every rank starts a nonblocking neighbourhood collective on a graph of
// every rank to every other. The first half of the ranks (emulated node 0)
// then block in an MPI call of their own, waiting for a token that each
// rank of the second half sends only once its own collective completed:
//   recv       MPI_Recv;
//   probe      MPI_Probe, then MPI_Recv;
//   sendrecv   MPI_Sendrecv (a zero-byte send to the partner beside the
//              receive, which the partner receives after its token).
// The second half's collective needs blocks that a forwarding plan
// (leader, aggregated) moves through the first half's ranks, so it
// completes only if those forward inside the call they block in. The
// MPI's own collective posts every message at its start and passes. Then
// everyone waits; every receive area, guard bytes included, is checked
// against its closed form (neighbor_case.h). Without progress inside the
// MPI's calls (NBRCOLL_PROGRESS=calls) the aggregated plan hangs here.
//
// With ints per block of 16384 (64 KiB) or more, auto's nonblocking
// allgathers forward under NBRCOLL_PROGRESS=mpi (call/decide.cpp).
//
//   blocked_forwarder KIND,... VARIANT,... [INTS]   (kinds: allgather, alltoall, alltoallv;
//                                                    INTS per block, 64)
#include <mpi.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/mpi/neighbor_case.h"

namespace {

using namespace nbt;

constexpr int kRounds = 6;
constexpr int kTokenTag = 77;

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

Kind kind_named(const std::string& name) {
  if (name == "alltoall") return Kind::alltoall;
  if (name == "alltoallv") return Kind::alltoallv;
  return Kind::allgather;
}

// The first half waits in `variant` for the token of its partner in the second half.
int blocked_wait(const std::string& variant, int partner) {
  int token = -1;
  if (variant == "probe") {
    MPI_Status status;
    const int rc = MPI_Probe(partner, kTokenTag, MPI_COMM_WORLD, &status);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (variant == "sendrecv") {
    return MPI_Sendrecv(nullptr, 0, MPI_INT, partner, kTokenTag + 1, &token, 1, MPI_INT, partner, kTokenTag,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return MPI_Recv(&token, 1, MPI_INT, partner, kTokenTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  const int ints = argc > 3 ? std::atoi(argv[3]) : 64;
  if (argc < 3 || g_size < 2 || g_size % 2 != 0 || ints <= 0) {
    if (g_rank == 0)
      std::fprintf(stderr, "usage: blocked_forwarder KIND,... VARIANT,... [INTS] (an even number of ranks)\n");
    MPI_Finalize();
    return 2;
  }
  Graph g = empty_graph(g_size, "every-other");
  for (int s = 0; s < g_size; ++s) {
    for (int d = 0; d < g_size; ++d) {
      if (s != d) add_edge(g, s, d);
    }
  }
  const MPI_Comm comm = make_graph(g);
  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> pairs = make_type_pairs(owned);
  const int half = g_size / 2;
  const bool blocked = g_rank < half;
  const int partner = blocked ? g_rank + half : g_rank - half;
  unsigned salt = 0;
  for (const std::string& kind : split(argv[1])) {
    for (const std::string& variant : split(argv[2])) {
      Call c;
      c.kind = kind_named(kind);
      c.graph = &g;
      c.types = &pairs[1];  // int
      c.count = ints;
      for (int round = 0; round < kRounds; ++round) {
        Run run(c);
        run.refill(++salt);
        const std::string what = kind + ", " + variant + ", round " + std::to_string(round);
        MPI_Request req = MPI_REQUEST_NULL;
        int rc = post(run, false, comm, &req);
        check(rc == MPI_SUCCESS, what + ": start returned " + std::to_string(rc));
        if (blocked) {
          rc = blocked_wait(variant, partner);
          check(rc == MPI_SUCCESS, what + ": the blocking call returned " + std::to_string(rc));
          rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
          rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
          const int token = round;
          MPI_Send(&token, 1, MPI_INT, partner, kTokenTag, MPI_COMM_WORLD);
          if (variant == "sendrecv")
            MPI_Recv(nullptr, 0, MPI_INT, partner, kTokenTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        check(rc == MPI_SUCCESS, what + ": wait returned " + std::to_string(rc));
        run.verify(what);
      }
    }
  }
  MPI_Comm freed = comm;
  MPI_Comm_free(&freed);
  return finish(owned);
}
