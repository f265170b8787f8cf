// The hand-off vote of distributed graphs (state/handoff_vote.h): under
// auto, a handle's calls that go linear by rule are the MPI's own from its
// 9th call (of any kind and mode) where every rank's lists allow the kind,
// by a vote started at its 3rd call; nbrcoll's before. For each graph,
// 12 calls (nonblocking alltoallv and alltoall, a blocking alltoallv; the
// 8th and 9th in flight together, across the switch), every receive area
// against the closed form with guard slots, and the voted kinds read from
// nbrcoll's state after the 8th and the 9th call:
//   ring                   every rank sends to and receives from both neighbours
//   ring + MPI_PROC_NULL   the last rank also names MPI_PROC_NULL in both lists
//   directed chain         the last rank has in-neighbours only
//   ring + a double edge   rank 0 sends to rank 1 twice
// alltoallw is never handed off; under Open MPI 4.1 the MPI_PROC_NULL and
// chain graphs keep every call nbrcoll's (its own collectives crash or
// hang there) and the others hand every other kind off; under MPICH 4.0
// no alltoall on the double edge. Also: a duplicate votes at its own calls, a
// graph freed while its vote is pending and one never freed (its vote
// completed at MPI_Finalize) cost nothing and hang nothing. With
// --veto-on-rank R, rank R runs with NBRCOLL_GRAPH_HANDOFF=0 (set before
// MPI_Init from the launcher's rank) and no graph's calls go to the MPI.
// Needs 3 ranks or more; linked with the static library to read the voted
// kinds.
#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "support/introspect.h"
#include "tests/mpi/mpi_check.h"

namespace {

using namespace nbt;

constexpr int kCalls = 12;
constexpr int kGuard = -77;
constexpr unsigned kEvery = 0x1f;  // the five kinds
constexpr unsigned kAlltoall = 1U << 2;
constexpr unsigned kAlltoallw = 1U << 4;

struct Graph {
  std::string name;
  std::vector<std::pair<int, int>> edges;  // (from, to), in order: each rank's lists follow it
  bool last_names_null = false;            // the last rank adds MPI_PROC_NULL to both lists
  bool double_edge = false;
  bool in_only_rank = false;
};

std::vector<int> out_of(const Graph& g, int r) {
  std::vector<int> out;
  for (const auto& [from, to] : g.edges)
    if (from == r) out.push_back(to);
  if (g.last_names_null && r == g_size - 1) out.push_back(MPI_PROC_NULL);
  return out;
}

std::vector<int> in_of(const Graph& g, int r) {
  std::vector<int> in;
  for (const auto& [from, to] : g.edges)
    if (to == r) in.push_back(from);
  if (g.last_names_null && r == g_size - 1) in.push_back(MPI_PROC_NULL);
  return in;
}

Graph ring(std::string name) {
  Graph g{std::move(name), {}};
  for (int r = 0; r < g_size; ++r) {
    g.edges.emplace_back(r, (r + 1) % g_size);
    g.edges.emplace_back(r, (r + g_size - 1) % g_size);
  }
  return g;
}

bool g_vetoed = false;  // a rank runs with NBRCOLL_GRAPH_HANDOFF=0

// What the vote gives each graph, by the MPI's known bugs.
unsigned expected_kinds(const Graph& g) {
  if (g_vetoed) return 0U;
  if (open_mpi_41()) return g.last_names_null || g.in_only_rank ? 0U : kEvery & ~kAlltoallw;
  if (mpich_40()) return kEvery & ~kAlltoallw & ~(g.double_edge ? kAlltoall : 0U);
  return 0U;
}

// The ints of out-block k of rank s (alltoallv), and their values.
int count_of(int s, int k) { return 2 + (s + k) % 4; }
int value(int s, int k, int e, int call) { return ((s * 16 + k) * 100 + e) * 16 + call; }

// For in-slot i of rank r: the sender's out-block index, or -1 (MPI_PROC_NULL).
// The j-th time r names s as a source pairs with the j-th time s names r.
int block_of(const Graph& g, int r, int i) {
  const std::vector<int> in = in_of(g, r);
  const int s = in[static_cast<std::size_t>(i)];
  if (s == MPI_PROC_NULL) return -1;
  int j = 0;
  for (int p = 0; p < i; ++p) j += in[static_cast<std::size_t>(p)] == s ? 1 : 0;
  const std::vector<int> out = out_of(g, s);
  for (std::size_t k = 0; k < out.size(); ++k)
    if (out[k] == r && j-- == 0) return static_cast<int>(k);
  return -2;  // not reached for a consistent graph
}

// One call's buffers: alltoallv blocks of count_of ints, or alltoall blocks
// of kFixed ints, each receive slot followed by a guard.
constexpr int kFixed = 3;
struct Exchange {
  bool v = true;
  std::vector<int> send, scounts, sdispls, recv, rcounts, rdispls;
};

Exchange prepare(const Graph& g, bool v, int call) {
  Exchange x;
  x.v = v;
  const std::vector<int> out = out_of(g, g_rank);
  const std::vector<int> in = in_of(g, g_rank);
  for (std::size_t k = 0; k < out.size(); ++k) {
    const int n = v ? count_of(g_rank, static_cast<int>(k)) : kFixed;
    x.sdispls.push_back(static_cast<int>(x.send.size()));
    x.scounts.push_back(n);
    for (int e = 0; e < n; ++e) x.send.push_back(value(g_rank, static_cast<int>(k), e, call));
  }
  int at = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const int k = block_of(g, g_rank, static_cast<int>(i));
    const int n = !v ? kFixed : k >= 0 ? count_of(in[i], k) : 2;
    x.rdispls.push_back(at);
    x.rcounts.push_back(n);
    at += n + 1;  // a guard after each slot
  }
  x.recv.assign(static_cast<std::size_t>(at) + 1, kGuard);
  if (x.send.empty()) x.send.push_back(0);
  return x;
}

// An array argument, never null (an empty neighbourhood's too: the MPI
// may take a null array for an argument error).
int* arg(std::vector<int>& v) {
  static int none = 0;
  return v.empty() ? &none : v.data();
}

int start(Exchange& x, MPI_Comm comm, MPI_Request* req) {
  if (x.v)
    return MPI_Ineighbor_alltoallv(x.send.data(), arg(x.scounts), arg(x.sdispls), MPI_INT, x.recv.data(),
                                   arg(x.rcounts), arg(x.rdispls), MPI_INT, comm, req);
  // alltoall: the receive blocks back to back, the guards after them.
  return MPI_Ineighbor_alltoall(x.send.data(), kFixed, MPI_INT, x.recv.data(), kFixed, MPI_INT, comm, req);
}

void verify(const Graph& g, const Exchange& x, int call, const std::string& at) {
  const std::vector<int> in = in_of(g, g_rank);
  std::vector<int> want(x.recv.size(), kGuard);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const int k = block_of(g, g_rank, static_cast<int>(i));
    if (k < 0) continue;  // MPI_PROC_NULL: untouched
    // alltoall blocks are laid out back to back (no guards between them).
    const int base = x.v ? x.rdispls[i] : static_cast<int>(i) * kFixed;
    for (int e = 0; e < x.rcounts[i]; ++e) want[static_cast<std::size_t>(base + e)] = value(in[i], k, e, call);
  }
  check(x.recv == want, at + ": receive area differs from the closed form");
}

std::string where(const Graph& g, const std::string& handle, int call) {
  return g.name + ", " + handle + ", call " + std::to_string(call);
}

// kCalls calls on `comm`; the voted kinds checked after calls 8 and 9.
void run_calls(const Graph& g, MPI_Comm comm, const std::string& handle) {
  for (int call = 1; call <= kCalls; ++call) {
    const std::string at = where(g, handle, call);
    if (call == 5) {  // blocking
      Exchange x = prepare(g, true, call);
      check(MPI_Neighbor_alltoallv(x.send.data(), arg(x.scounts), arg(x.sdispls), MPI_INT, x.recv.data(),
                                   arg(x.rcounts), arg(x.rdispls), MPI_INT, comm) == MPI_SUCCESS,
            at + ": blocking call");
      verify(g, x, call, at);
      continue;
    }
    if (call == 8) {  // calls 8 and 9 in flight together
      Exchange a = prepare(g, true, 8);
      Exchange b = prepare(g, false, 9);
      MPI_Request r[2];
      check(start(a, comm, &r[0]) == MPI_SUCCESS, at + ": start");
      check(nbrcoll::kinds_voted_to_mpi(comm) == 0, at + ": nothing voted before the 9th call");
      check(start(b, comm, &r[1]) == MPI_SUCCESS, where(g, handle, 9) + ": start");
      const unsigned got = nbrcoll::kinds_voted_to_mpi(comm);
      check(got == expected_kinds(g),
            where(g, handle, 9) + ": voted kinds " + std::to_string(got) + ", want " + std::to_string(expected_kinds(g)));
      check(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, at + ": waitall");
      verify(g, a, 8, at);
      verify(g, b, 9, where(g, handle, 9));
      ++call;
      continue;
    }
    Exchange x = prepare(g, call % 2 == 1, call);
    MPI_Request r = MPI_REQUEST_NULL;
    check(start(x, comm, &r) == MPI_SUCCESS, at + ": start");
    check(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS, at + ": wait");
    verify(g, x, call, at);
  }
}

MPI_Comm make(const Graph& g) {
  const std::vector<int> in = in_of(g, g_rank);
  const std::vector<int> out = out_of(g, g_rank);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
  return comm;
}

// A few calls, then left: `free_it` frees the graph with its vote pending
// (calls 3 to 8), else MPI_Finalize completes it.
void few_calls(const Graph& g, int calls, bool free_it) {
  MPI_Comm comm = make(g);
  for (int call = 1; call <= calls; ++call) {
    Exchange x = prepare(g, true, call);
    MPI_Request r = MPI_REQUEST_NULL;
    check(start(x, comm, &r) == MPI_SUCCESS && MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          where(g, "few calls", call) + ": call");
    verify(g, x, call, where(g, "few calls", call));
  }
  if (free_it) MPI_Comm_free(&comm);
}

}  // namespace

// The launcher's rank of this process, before MPI_Init (Open MPI, MPICH).
int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return -1;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--veto-on-rank") == 0) {
    g_vetoed = true;
    if (launcher_rank() == std::atoi(argv[2])) setenv("NBRCOLL_GRAPH_HANDOFF", "0", 1);
  }
  MPI_Init(&argc, &argv);
  begin();
  if (g_size >= 3) {
    std::vector<Graph> graphs;
    graphs.push_back(ring("ring"));
    graphs.push_back(ring("ring + MPI_PROC_NULL"));
    graphs.back().last_names_null = true;
    Graph chain{"directed chain", {}};
    for (int r = 0; r + 1 < g_size; ++r) chain.edges.emplace_back(r, r + 1);
    chain.in_only_rank = true;
    graphs.push_back(chain);
    graphs.push_back(ring("ring + a double edge"));
    graphs.back().edges.emplace_back(0, 1);
    graphs.back().double_edge = true;
    for (const Graph& g : graphs) {
      MPI_Comm comm = make(g);
      run_calls(g, comm, "graph");
      MPI_Comm dup = MPI_COMM_NULL;
      MPI_Comm_dup(comm, &dup);
      check(nbrcoll::kinds_voted_to_mpi(dup) == 0, g.name + ": a duplicate votes at its own calls");
      run_calls(g, dup, "duplicate");
      MPI_Comm_free(&dup);
      MPI_Comm_free(&comm);
    }
    few_calls(graphs[0], 4, true);
    few_calls(graphs[0], 5, false);
  }
  return finish();
}
