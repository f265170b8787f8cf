// Calls that repeat: a halo exchange makes the same call, same buffers and
// counts, every iteration, and nbrcoll then skips the decision and starts
// the messages it kept from the call before (call/repeat.h,
// transport/standing_messages.h). Every case here repeats calls on the same
// buffers with new data each time, and changes exactly what a repeat must
// notice, each result against its closed form, guards around every block:
//  - the same call 6 times, blocking and nonblocking (two calls in flight on
//    one communicator, completed in reverse order), every kind, in-place
//    and packed datatypes (alltoallw: a type per block, in place and
//    packed mixed), on the test graphs (duplicate and self edges,
//    MPI_PROC_NULL, empty neighbourhoods);
//  - alltoallv and allgatherv whose counts change between repeats on the
//    same buffers (zero counts among them), and whose send or receive
//    buffer (or both) alternates between two under the same counts;
//  - a derived datatype freed and another made, likely at the same handle,
//    with another layout, on the same buffers (alltoall, and alltoallw
//    with it for every block);
//  - an erroneous call (one rank sends more than its peers expect) that
//    truncates on kept messages, then correct calls again.
// The tests run at NBRCOLL_DEBUG=trace and must show repeats taken.
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"

namespace {

using namespace nbt;

constexpr int kRounds = 6;
constexpr int kGuardInt = -7;

// ---- the same call again and again ---------------------------------------------

// `per_edge`: alltoallw's pool of types (neighbor_case.h, edge_types).
void same_call(const Graph& graph, MPI_Comm g, Kind kind, const TypePair& t,
               const std::vector<TypePair>* per_edge = nullptr) {
  const std::string at = graph.name + " " + kind_name(kind) + " " + (per_edge != nullptr ? "per-block types" : t.name);
  const auto call = [&](int count) { return Call{kind, &graph, &t, count, 0, per_edge}; };
  Run blocking(call(2));
  for (int round = 0; round < kRounds; ++round) {
    blocking.refill(static_cast<unsigned>(round + 1));
    check(post(blocking, false, g, nullptr) == MPI_SUCCESS, at + ": blocking call");
    blocking.verify(at + " blocking round " + std::to_string(round));
  }
  Run a(call(2));
  Run b(call(3));
  for (int round = 0; round < kRounds; ++round) {
    a.refill(static_cast<unsigned>(2 * round + 1));
    b.refill(static_cast<unsigned>(2 * round + 2));
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    check(post(a, false, g, &req[0]) == MPI_SUCCESS, at + ": nonblocking call a");
    check(post(b, false, g, &req[1]) == MPI_SUCCESS, at + ": nonblocking call b");
    const auto how = static_cast<Done>(round % static_cast<int>(Done::count));
    check(complete(&req[1], how) == MPI_SUCCESS, at + ": completing b with " + done_name(how));
    check(complete(&req[0], Done::wait) == MPI_SUCCESS, at + ": completing a");
    a.verify(at + " nonblocking a round " + std::to_string(round));
    b.verify(at + " nonblocking b round " + std::to_string(round));
  }
}

// ---- counts that change on the same buffers ---------------------------------------

constexpr int kMost = 4;  // elements per block at most; one guard element follows each block

int count_of(int sender, std::size_t edge, int pattern) {
  return static_cast<int>((static_cast<std::size_t>(sender) * 7 + edge * 3 + static_cast<std::size_t>(pattern)) %
                          (kMost + 1));
}
int value_of(int sender, std::size_t edge, int k, int round) {
  return sender * 100000 + static_cast<int>(edge) * 1000 + k * 10 + round % 10;
}

// Alltoallv (or allgatherv: one block, edge 0) with counts from `pattern`,
// on buffers that stay where they are for the whole run.
struct Changing {
  Changing(const Graph& g, bool gather_only) : graph(g), gather(gather_only) {}
  const Graph& graph;
  bool gather;
  int me = my_rank(graph);
  const std::vector<int>& in = graph.in[static_cast<std::size_t>(me)];
  const std::vector<int>& out = graph.out[static_cast<std::size_t>(me)];
  std::vector<int> send = std::vector<int>((out.size() + 1) * (kMost + 1));
  std::vector<int> recv = std::vector<int>((in.size() + 1) * (kMost + 1));
  std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
  // Second buffers, for calls that repeat on other buffers.
  std::vector<int> send2 = send;
  std::vector<int> recv2 = recv;
  bool other_send = false;
  bool other_recv = false;
  std::vector<int>& send_now() { return other_send ? send2 : send; }
  std::vector<int>& recv_now() { return other_recv ? recv2 : recv; }
  [[nodiscard]] const std::vector<int>& recv_now() const { return other_recv ? recv2 : recv; }

  void set(int pattern, int round) {
    const std::size_t blocks = gather ? 1 : out.size();
    for (std::vector<int>* v : {&sendcounts, &sdispls, &recvcounts, &rdispls}) v->reserve(1);  // never null
    sendcounts.assign(blocks, 0);
    sdispls.assign(blocks, 0);
    for (std::size_t j = 0; j < blocks; ++j) {
      sendcounts[j] = count_of(me, j, pattern);
      sdispls[j] = static_cast<int>(j) * (kMost + 1);
      for (int k = 0; k < sendcounts[j]; ++k)
        send_now()[static_cast<std::size_t>(sdispls[j] + k)] = value_of(me, j, k, round);
    }
    recvcounts.assign(in.size(), 0);
    rdispls.assign(in.size(), 0);
    for (std::size_t i = 0; i < in.size(); ++i) {
      rdispls[i] = static_cast<int>(i) * (kMost + 1);
      if (in[i] != MPI_PROC_NULL) recvcounts[i] = count_of(in[i], gather ? 0 : paired_edge(graph, me, i), pattern);
    }
    std::fill(recv.begin(), recv.end(), kGuardInt);
    std::fill(recv2.begin(), recv2.end(), kGuardInt);
  }
  int call(MPI_Comm g, MPI_Request* req) {
    const int* from = send_now().data();
    int* into = recv_now().data();
    if (gather) {
      return req == nullptr ? MPI_Neighbor_allgatherv(from, sendcounts[0], MPI_INT, into, recvcounts.data(),
                                                      rdispls.data(), MPI_INT, g)
                            : MPI_Ineighbor_allgatherv(from, sendcounts[0], MPI_INT, into, recvcounts.data(),
                                                       rdispls.data(), MPI_INT, g, req);
    }
    return req == nullptr ? MPI_Neighbor_alltoallv(from, sendcounts.data(), sdispls.data(), MPI_INT, into,
                                                   recvcounts.data(), rdispls.data(), MPI_INT, g)
                          : MPI_Ineighbor_alltoallv(from, sendcounts.data(), sdispls.data(), MPI_INT, into,
                                                    recvcounts.data(), rdispls.data(), MPI_INT, g, req);
  }
  void verify(int round, const std::string& at) const {
    std::vector<int> want(recv.size(), kGuardInt);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (in[i] == MPI_PROC_NULL) continue;
      const std::size_t edge = gather ? 0 : paired_edge(graph, me, i);
      for (int k = 0; k < recvcounts[i]; ++k)
        want[static_cast<std::size_t>(rdispls[i] + k)] = value_of(in[i], edge, k, round);
    }
    check(recv_now() == want, at + ": receive area differs from the closed form");
    const std::vector<int>& idle = other_recv ? recv : recv2;
    check(std::all_of(idle.begin(), idle.end(), [](int v) { return v == kGuardInt; }),
          at + ": the other receive buffer was written");
  }
};

void changing_counts(const Graph& graph, MPI_Comm g, bool gather) {
  // Repeats, then a change, as an adaptive code's exchanges do.
  const int patterns[] = {0, 0, 0, 1, 1, 2, 2, 2, 0, 0, 3};
  Changing c(graph, gather);
  for (const bool nonblocking : {false, true}) {
    int round = 0;
    for (const int pattern : patterns) {
      const std::string at = graph.name + (gather ? " allgatherv" : " alltoallv") +
                             (nonblocking ? " nonblocking" : " blocking") + " counts " + std::to_string(pattern) +
                             " round " + std::to_string(round);
      c.set(pattern, round);
      MPI_Request req = MPI_REQUEST_NULL;
      check(c.call(g, nonblocking ? &req : nullptr) == MPI_SUCCESS, at + ": call");
      if (nonblocking) check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, at + ": wait");
      c.verify(round, at);
      ++round;
    }
  }
  // The same counts on other buffers: the send buffer alternating under
  // one receive buffer (PETSc's scatter of a Krylov basis vector into one
  // ghost vector), the receive buffer alternating, both.
  for (const bool nonblocking : {false, true}) {
    for (const int which : {1, 2, 3}) {
      for (int round = 0; round < 6; ++round) {
        c.other_send = (which & 1) != 0 && round % 2 == 1;
        c.other_recv = (which & 2) != 0 && round % 2 == 1;
        const std::string at = graph.name + (gather ? " allgatherv" : " alltoallv") +
                               (nonblocking ? " nonblocking" : " blocking") + " other buffers " +
                               std::to_string(which) + " round " + std::to_string(round);
        c.set(1, round);
        MPI_Request req = MPI_REQUEST_NULL;
        check(c.call(g, nonblocking ? &req : nullptr) == MPI_SUCCESS, at + ": call");
        if (nonblocking) check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, at + ": wait");
        c.verify(round, at);
      }
    }
  }
  c.other_send = false;
  c.other_recv = false;
}

// ---- a datatype freed and another made at its handle ---------------------------------

// The element types below: where their ints lie in one element, and the
// element's extent in ints.
struct Shape {
  std::vector<std::size_t> ints;
  std::size_t extent;
};
const Shape kShapes[3] = {{{0, 1}, 2}, {{0, 2}, 3}, {{0, 1, 2}, 3}};

// 0: two ints, contiguous; 1: every other int of three (packed); 2: three
// ints, contiguous (in place like 0, but longer).
MPI_Datatype shape_type(int shape) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (shape == 1) {
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
  } else {
    MPI_Type_contiguous(shape == 0 ? 2 : 3, MPI_INT, &t);
  }
  MPI_Type_commit(&t);
  return t;
}

// `per_block`: as alltoallw, the type named for every block, byte
// displacements where alltoall would put the blocks.
void recreated_type(const Graph& graph, MPI_Comm g, bool per_block, int& reused) {
  const int me = my_rank(graph);
  const std::vector<int>& in = graph.in[static_cast<std::size_t>(me)];
  const std::vector<int>& out = graph.out[static_cast<std::size_t>(me)];
  constexpr std::size_t kSlotInts = 3;  // the largest extent, in ints
  std::vector<int> send((out.size() + 1) * kSlotInts);
  std::vector<int> recv((in.size() + 1) * kSlotInts);
  const std::vector<int> ones_out(out.size(), 1);
  const std::vector<int> ones_in(in.size(), 1);
  std::vector<MPI_Aint> sdispls(out.size());
  std::vector<MPI_Aint> rdispls(in.size());
  MPI_Datatype last = MPI_DATATYPE_NULL;
  int round = 0;
  for (const int shape : {0, 2, 0, 1, 0}) {
    const MPI_Datatype t = shape_type(shape);
    if (t == last) ++reused;
    const Shape& sh = kShapes[shape];
    const auto bytes = static_cast<MPI_Aint>(sh.extent * sizeof(int));
    for (std::size_t j = 0; j < out.size(); ++j) sdispls[j] = static_cast<MPI_Aint>(j) * bytes;
    for (std::size_t i = 0; i < in.size(); ++i) rdispls[i] = static_cast<MPI_Aint>(i) * bytes;
    for (int again = 0; again < 3; ++again, ++round) {
      const std::string at = graph.name + (per_block ? " alltoallw" : " alltoall") + " recreated type, shape " +
                             std::to_string(shape) + " round " + std::to_string(round);
      std::fill(send.begin(), send.end(), kGuardInt);
      for (std::size_t j = 0; j < out.size(); ++j) {
        for (std::size_t k = 0; k < sh.ints.size(); ++k)
          send[j * sh.extent + sh.ints[k]] = value_of(me, j, static_cast<int>(k), round);
      }
      std::fill(recv.begin(), recv.end(), kGuardInt);
      if (per_block) {
        const std::vector<MPI_Datatype> sendtypes(out.size(), t);
        const std::vector<MPI_Datatype> recvtypes(in.size(), t);
        check(MPI_Neighbor_alltoallw(send.data(), ones_out.data(), sdispls.data(), sendtypes.data(), recv.data(),
                                     ones_in.data(), rdispls.data(), recvtypes.data(), g) == MPI_SUCCESS,
              at + ": call");
      } else {
        check(MPI_Neighbor_alltoall(send.data(), 1, t, recv.data(), 1, t, g) == MPI_SUCCESS, at + ": call");
      }
      std::vector<int> want(recv.size(), kGuardInt);
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] == MPI_PROC_NULL) continue;
        const std::size_t edge = paired_edge(graph, me, i);
        for (std::size_t k = 0; k < sh.ints.size(); ++k)
          want[i * sh.extent + sh.ints[k]] = value_of(in[i], edge, static_cast<int>(k), round);
      }
      check(recv == want, at + ": receive area differs from the closed form");
    }
    last = t;
    MPI_Datatype freed = t;
    MPI_Type_free(&freed);
  }
}

// ---- truncation on kept messages (erroneous) ------------------------------------------

// Every rank sends 2 ints to each of up to 3 peers, three rounds alike, then
// rank 0 sends 3 in one round (its peers still post 2: a truncation, which
// they must report), then three rounds alike again, which must be right.
void truncated_repeat(MPI_Comm world_dup) {
  Graph graph = empty_graph(g_size, "three-ahead");
  for (int r = 0; r < g_size; ++r)
    for (int d = 1; d <= 3 && d < g_size; ++d) add_edge(graph, r, (r + d) % g_size);
  const std::vector<int>& in = graph.in[static_cast<std::size_t>(g_rank)];
  const std::vector<int>& out = graph.out[static_cast<std::size_t>(g_rank)];
  MPI_Comm g = create_adjacent(graph, g_rank, world_dup);
  constexpr int kSlot = 4;
  std::vector<int> send(out.size() * kSlot + 1);
  std::vector<int> recv(in.size() * kSlot + 1);
  std::vector<int> sendcounts(out.size(), 2);
  std::vector<int> recvcounts(in.size(), 2);
  std::vector<int> sdispls(out.size());
  std::vector<int> rdispls(in.size());
  for (std::size_t j = 0; j < out.size(); ++j) sdispls[j] = static_cast<int>(j) * kSlot;
  for (std::size_t i = 0; i < in.size(); ++i) rdispls[i] = static_cast<int>(i) * kSlot;
  bool from_zero = false;
  for (const int src : in) from_zero = from_zero || src == 0;
  for (int round = 0; round < 7; ++round) {
    const bool bad = round == 3;
    const std::string at = "truncation round " + std::to_string(round);
    for (std::size_t j = 0; j < out.size(); ++j) {
      sendcounts[j] = bad && g_rank == 0 ? 3 : 2;
      for (int k = 0; k < kSlot; ++k) send[j * kSlot + static_cast<std::size_t>(k)] = value_of(g_rank, j, k, round);
    }
    std::fill(recv.begin(), recv.end(), kGuardInt);
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_Ineighbor_alltoallv(send.data(), sendcounts.data(), sdispls.data(), MPI_INT, recv.data(),
                                     recvcounts.data(), rdispls.data(), MPI_INT, g, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (bad) {
      if (from_zero) check(rc != MPI_SUCCESS, at + ": a block longer than posted is reported");
    } else {
      check(rc == MPI_SUCCESS, at + ": call");
      std::vector<int> want(recv.size(), kGuardInt);
      for (std::size_t i = 0; i < in.size(); ++i) {
        const std::size_t edge = paired_edge(graph, g_rank, i);
        for (int k = 0; k < 2; ++k) want[i * kSlot + static_cast<std::size_t>(k)] = value_of(in[i], edge, k, round);
      }
      check(recv == want, at + ": receive area differs from the closed form");
    }
    MPI_Barrier(world_dup);  // the truncated round ends everywhere before the next
  }
  MPI_Comm_free(&g);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> types = make_type_pairs(owned);
  const std::vector<Graph> graphs = test_graphs();
  for (const Graph& graph : graphs) {
    const MPI_Comm g = make_graph(graph);
    for (const Kind kind : {Kind::alltoall, Kind::alltoallv, Kind::allgather, Kind::allgatherv}) {
      for (const TypePair* t : {&types[0], &types[1], &types[3], &types[2]}) same_call(graph, g, kind, *t);
    }
    same_call(graph, g, Kind::alltoallw, types[0], &types);
    changing_counts(graph, g, false);
    changing_counts(graph, g, true);
    MPI_Comm free_me = g;
    MPI_Comm_free(&free_me);
  }
  int reused = 0;
  {
    const Graph& graph = graphs[0];  // duplicate and self edges, MPI_PROC_NULL
    MPI_Comm g = make_graph(graph);
    recreated_type(graph, g, false, reused);
    recreated_type(graph, g, true, reused);
    MPI_Comm_free(&g);
  }
  if (g_rank == 0) std::fprintf(stderr, "a new datatype came back at the freed one's handle %d times\n", reused);
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  truncated_repeat(dup);
  MPI_Comm_free(&dup);
  return finish(owned);
}
