// Many graphs on nbrcoll's one shared communicator (src/state/shared_comm.h): graphs
// on MPI_COMM_WORLD, on a communicator whose ranks run in reverse world order
// (graph ranks are not world ranks there) and on two halves, each with
// duplicates and duplicates of duplicates, some beyond the blocks a graph has
// (those go to the MPI's own collectives); graphs freed and made again as the
// rounds go on, so serials keep growing; nonblocking calls on every handle in
// flight together, started in a different order on every rank; graphs made
// by two threads at once. Every receive area against its closed form, guards
// included. And what the channels must be: every live handle on a rank has
// its own tag block, the same serial on every rank of its graph.
// NBRCOLL_SHARED_COMM=0 runs the same on private communicators.
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "state/comm_state.h"
#include "state/shared_comm.h"
#include "state/tag_blocks.h"
#include "support/config.h"
#include "tests/mpi/mpi_check.h"
#include "tests/mpi/test_graphs.h"

using nbt::check;
using nbt::g_rank;
using nbt::g_size;

namespace {

constexpr int kRounds = 12;
constexpr int kGuard = -7;

// One communicator handle: a graph or a duplicate, with the graph it was made
// from (lists in the ranks of `base`, the communicator the graph was made on).
struct Handle {
  MPI_Comm comm = MPI_COMM_NULL;
  std::shared_ptr<const Graph> graph;
  int id = 0;  // names the handle in the data and the messages
  std::string name;
};

MPI_Comm make_on(MPI_Comm base, const Graph& g) {
  int rank = 0;
  MPI_Comm_rank(base, &rank);
  const auto& in = g.in[static_cast<std::size_t>(rank)];
  const auto& out = g.out[static_cast<std::size_t>(rank)];
  MPI_Comm c = MPI_COMM_NULL;
  check(MPI_Dist_graph_create_adjacent(base, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                       static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                       &c) == MPI_SUCCESS,
        g.name + ": graph creation");
  return c;
}

// The element k of the block that graph rank s sends on handle `id` in `round`.
int element(int s, int id, int round, int k) {
  return ((s * 97 + id) * 31 + round) * 8 + k;
}

int count_of(int id, int round) {
  return 1 + (id + round) % 5;
}

// This rank's buffers for one allgather on `h`.
struct Exchange {
  const Handle* h = nullptr;
  int round = 0;
  int rank = 0;
  std::vector<int> send;
  std::vector<int> recv;  // the in-list's blocks and a guard block after them
  Exchange(const Handle& handle, int r) : h(&handle), round(r) {
    MPI_Comm_rank(handle.comm, &rank);
    const int n = count_of(h->id, round);
    for (int k = 0; k < n; ++k) send.push_back(element(rank, h->id, round, k));
    const std::size_t in = h->graph->in[static_cast<std::size_t>(rank)].size();
    recv.assign((in + 1) * static_cast<std::size_t>(n), kGuard);
  }
  int start(MPI_Request* req) {
    const int n = count_of(h->id, round);
    return MPI_Ineighbor_allgather(send.data(), n, MPI_INT, recv.data(), n, MPI_INT, h->comm, req);
  }
  int run() {
    const int n = count_of(h->id, round);
    return MPI_Neighbor_allgather(send.data(), n, MPI_INT, recv.data(), n, MPI_INT, h->comm);
  }
  void verify(const std::string& how) const {
    const int n = count_of(h->id, round);
    const auto& in = h->graph->in[static_cast<std::size_t>(rank)];
    std::vector<int> want(recv.size(), kGuard);
    for (std::size_t i = 0; i < in.size(); ++i)
      for (int k = 0; in[i] != MPI_PROC_NULL && k < n; ++k)
        want[i * static_cast<std::size_t>(n) + static_cast<std::size_t>(k)] = element(in[i], h->id, round, k);
    check(recv == want, h->name + ", round " + std::to_string(round) + " (" + how + "): receive area");
  }
};

// Duplicates of `parent`: more than one handle has blocks for, and a
// duplicate of the first (a grandchild). Appended to `all`.
void duplicate(const Handle& parent, int& next_id, std::vector<Handle>& all) {
  MPI_Comm first = MPI_COMM_NULL;
  for (int k = 1; k <= nbrcoll::kDupBranching + 1; ++k) {
    Handle d{MPI_COMM_NULL, parent.graph, next_id++, parent.name + " dup " + std::to_string(k)};
    check(MPI_Comm_dup(parent.comm, &d.comm) == MPI_SUCCESS, d.name + ": MPI_Comm_dup");
    if (k == 1) first = d.comm;
    all.push_back(d);
  }
  Handle grand{MPI_COMM_NULL, parent.graph, next_id++, parent.name + " dup 1 dup 1"};
  check(MPI_Comm_dup(first, &grand.comm) == MPI_SUCCESS, grand.name + ": MPI_Comm_dup");
  all.push_back(grand);
}

// Every live handle with nbrcoll state has its own tag block (shared) or
// its own communicator (private); handles beyond a graph's blocks have none;
// each handle's channel is the same on every rank of it.
void check_channels(const std::vector<Handle>& all, const std::string& when) {
  std::set<long long> bases;
  std::set<MPI_Comm> comms;
  for (const Handle& h : all) {
    const nbrcoll::CommState* state = nbrcoll::find_state(h.comm);
    const bool beyond = h.name.find(" dup " + std::to_string(nbrcoll::kDupBranching + 1)) != std::string::npos;
    const bool shared = nbrcoll::config().shared_comm && nbrcoll::shared_comm() != MPI_COMM_NULL;
    if (shared && beyond) {
      check(state == nullptr, when + ", " + h.name + ": no block left: the MPI's own collectives");
      continue;
    }
    check(state != nullptr && state->own != nullptr, when + ", " + h.name + ": nbrcoll state");
    if (state == nullptr || state->own == nullptr) continue;
    const nbrcoll::OwnedComm& own = *state->own;
    long long mine[3] = {own.shared ? 1 : 0, static_cast<long long>(own.serial), own.tag_base};
    long long low[3] = {mine[0], mine[1], mine[2]};
    long long high[3] = {mine[0], mine[1], mine[2]};
    MPI_Allreduce(MPI_IN_PLACE, low, 3, MPI_LONG_LONG, MPI_MIN, h.comm);
    MPI_Allreduce(MPI_IN_PLACE, high, 3, MPI_LONG_LONG, MPI_MAX, h.comm);
    check(std::equal(low, low + 3, high), when + ", " + h.name + ": one channel on every rank");
    if (own.shared) {
      check(bases.insert(own.tag_base).second, when + ", " + h.name + ": a tag block no other live handle has");
      check(own.tag_base == nbrcoll::tag_block_base(own.serial, own.handle), when + ", " + h.name + ": block base");
    } else {
      check(comms.insert(own.comm).second, when + ", " + h.name + ": a communicator no other live handle has");
    }
  }
}

// Nonblocking calls on every handle in flight together, started in an order
// of this rank's own (legal: each communicator sees its calls in one order),
// then blocking calls in one common order.
void exchange_all(const std::vector<Handle>& all, int round) {
  std::vector<std::unique_ptr<Exchange>> runs;
  for (const Handle& h : all) runs.push_back(std::make_unique<Exchange>(h, round));
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::rotate(order.begin(), order.begin() + static_cast<long>((static_cast<std::size_t>(g_rank) * 5) % order.size()),
              order.end());
  if (g_rank % 2 == 1) std::reverse(order.begin(), order.end());
  std::vector<MPI_Request> reqs(runs.size(), MPI_REQUEST_NULL);
  for (const std::size_t i : order) check(runs[i]->start(&reqs[i]) == MPI_SUCCESS, all[i].name + ": start");
  check(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE) == MPI_SUCCESS, "Waitall");
  for (const auto& r : runs) r->verify("nonblocking, all in flight");
  for (const auto& r : runs) {
    std::fill(r->recv.begin(), r->recv.end(), kGuard);
    check(r->run() == MPI_SUCCESS, r->h->name + ": blocking call");
    r->verify("blocking");
  }
}

void free_all(std::vector<Handle>& all) {
  for (Handle& h : all) MPI_Comm_free(&h.comm);
  all.clear();
}

// Random, with duplicate and self edges, plus a ring: every rank has in- and
// out-neighbours, and no MPI_PROC_NULL, so the MPI's own collective can serve
// the duplicates beyond a graph's blocks (Open MPI 4.1.4's crashes on
// MPI_PROC_NULL and hangs on a rank with in- and no out-neighbours: README).
Graph random_with_ring(int size, const std::string& name, unsigned seed) {
  Graph g = random_graph(size, name + " graph " + std::to_string(seed), 0.4, seed, true, true, false);
  for (int r = 0; r < size; ++r) add_edge(g, r, (r + 1) % size);
  return g;
}

// A graph made on each of two duplicates of MPI_COMM_WORLD by two threads at
// once; each thread then runs blocking calls on its own graph.
void threads_at_once(int& next_id) {
  MPI_Comm bases[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
  MPI_Comm_dup(MPI_COMM_WORLD, &bases[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &bases[1]);
  auto graphs = std::make_shared<const Graph>(random_with_ring(g_size, "thread", 77));
  Handle made[2];
  std::atomic<int> ready{0};
  auto work = [&](int t) {
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    made[t] = Handle{make_on(bases[t], *graphs), graphs, next_id + t, "thread " + std::to_string(t) + " graph"};
    for (int round = 0; round < 6; ++round) {
      Exchange e(made[t], round);
      check(e.run() == MPI_SUCCESS, made[t].name + ": blocking call");
      e.verify("own thread");
    }
  };
  std::thread a(work, 0);
  std::thread b(work, 1);
  a.join();
  b.join();
  next_id += 2;
  std::vector<Handle> both{made[0], made[1]};
  check_channels(both, "two threads");
  exchange_all(both, 100);
  free_all(both);
  MPI_Comm_free(&bases[0]);
  MPI_Comm_free(&bases[1]);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  nbt::begin();
  nbt::expect_interposed(
      {"MPI_Init_thread", "MPI_Dist_graph_create_adjacent", "MPI_Neighbor_allgather", "MPI_Ineighbor_allgather"});
  MPI_Comm reversed = MPI_COMM_NULL;
  MPI_Comm half = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - 1 - g_rank, &reversed);
  MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &half);
  int half_size = 0;
  MPI_Comm_size(half, &half_size);
  struct Base {
    MPI_Comm comm;
    int size;
    const char* name;
  };
  const Base bases[] = {{MPI_COMM_WORLD, g_size, "world"}, {reversed, g_size, "reversed"}, {half, half_size, "half"}};

  int next_id = 0;
  std::vector<Handle> all;
  std::vector<Handle> renewed;  // the half graph and its duplicates: made again every few rounds
  auto make_graph = [&](const Base& b, unsigned seed, std::vector<Handle>& into) {
    Handle h{MPI_COMM_NULL, std::make_shared<const Graph>(random_with_ring(b.size, b.name, seed)), next_id++, ""};
    h.name = h.graph->name;
    h.comm = make_on(b.comm, *h.graph);
    into.push_back(h);
    duplicate(h, next_id, into);
  };
  make_graph(bases[0], 11, all);
  make_graph(bases[1], 12, all);
  unsigned seed = 13;
  make_graph(bases[2], seed, renewed);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<Handle> live(all);
    live.insert(live.end(), renewed.begin(), renewed.end());
    if (round % 4 == 0) check_channels(live, "round " + std::to_string(round));
    exchange_all(live, round);
    if (round % 4 == 3) {
      free_all(renewed);
      make_graph(bases[2], ++seed, renewed);
    }
  }
  free_all(renewed);
  free_all(all);
  if (provided == MPI_THREAD_MULTIPLE) threads_at_once(next_id);
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&half);
  return nbt::finish();
}
