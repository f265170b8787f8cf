// One neighborhood collective call (alltoall, alltoallv, alltoallw,
// allgather, allgatherv) described so that every rank can compute every rank's
// arguments and data: the test programs build each rank's expected receive
// area in closed form, post the call through MPI_ (nbrcoll when it is linked
// or preloaded) or PMPI_ (the MPI's own), and compute a reference with plain
// PMPI point-to-point messages over the graph's lists (Open MPI 4.1.4's own
// neighbor collectives crash or hang on some graphs, see README).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/support/persistent_forms.h"
#include "tests/mpi/mpi_check.h"
#include "tests/mpi/test_graphs.h"

namespace nbt {

inline MPI_Comm make_graph(const Graph& g) {
  return create_adjacent(g, g_rank);
}

// This process's rank in the graph's communicator.
inline int my_rank(const Graph& g) {
  return g.self >= 0 ? g.self : g_rank;
}

// Random with duplicate and self edges (with and without MPI_PROC_NULL),
// every rank empty, a star, a directed chain, a ring.
inline std::vector<Graph> test_graphs() {
  std::vector<Graph> gs;
  gs.push_back(random_graph(g_size, "random-dup-self-null", 0.4, 12, true, true, true));
  gs.push_back(random_graph(g_size, "random-dup-self", 0.5, 34, true, true, false));
  gs.push_back(empty_graph(g_size, "empty"));
  gs.push_back(star_graph(g_size));
  Graph chain = empty_graph(g_size, "chain");
  for (int r = 0; r + 1 < g_size; ++r) add_edge(chain, r, r + 1);
  gs.push_back(chain);
  gs.push_back(ring_graph(g_size));
  return gs;
}

constexpr unsigned char kGuard = 0xA5;
constexpr std::size_t kGuardBytes = 32;

// A datatype and where one element's bytes lie, in type-map order: the
// closed form moves bytes by these maps and never asks the MPI.
struct TypeMap {
  MPI_Datatype type = MPI_BYTE;
  std::vector<std::pair<std::size_t, std::size_t>> pieces;  // (offset, length) in one element
  std::size_t extent = 1;
};

// A send and a receive type of one type signature.
struct TypePair {
  std::string name;
  TypeMap send;
  TypeMap recv;
};

// byte, int, a strided vector into contiguous ints and back, a resized type
// (gaps between elements), a struct with a gap inside each element.
inline std::vector<TypePair> make_type_pairs(std::vector<MPI_Datatype>& owned) {
  const auto commit = [&owned](MPI_Datatype t) {
    MPI_Type_commit(&t);
    owned.push_back(t);
    return t;
  };
  MPI_Datatype vec = MPI_DATATYPE_NULL;
  MPI_Datatype three = MPI_DATATYPE_NULL;
  MPI_Datatype two = MPI_DATATYPE_NULL;
  MPI_Datatype resized = MPI_DATATYPE_NULL;
  MPI_Datatype gapped = MPI_DATATYPE_NULL;
  MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
  MPI_Type_contiguous(3, MPI_INT, &three);
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_create_resized(two, 0, 12, &resized);
  MPI_Type_free(&two);
  const int lengths[2] = {1, 1};
  const MPI_Aint at[2] = {0, 8};
  const MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
  MPI_Type_create_struct(2, lengths, at, types, &gapped);
  const TypeMap byte{MPI_BYTE, {{0, 1}}, 1};
  const TypeMap int1{MPI_INT, {{0, 4}}, 4};
  const TypeMap strided{commit(vec), {{0, 4}, {8, 4}, {16, 4}}, 20};
  const TypeMap contig{commit(three), {{0, 12}}, 12};
  const TypeMap padded{commit(resized), {{0, 8}}, 12};
  const TypeMap holed{commit(gapped), {{0, 1}, {8, 8}}, 16};
  return {{"byte", byte, byte},
          {"int", int1, int1},
          {"vector->contig", strided, contig},
          {"contig->vector", contig, strided},
          {"resized", padded, padded},
          {"struct-gap", holed, holed}};
}

// A subarray (2 x 3 ints at (1, 1) of a 4 x 5 array, C order: two pieces,
// extent the whole array) into 6 contiguous ints, and back: the halo of a
// stencil code.
inline TypePair make_subarray_pair(std::vector<MPI_Datatype>& owned) {
  const int sizes[2] = {4, 5};
  const int sub[2] = {2, 3};
  const int starts[2] = {1, 1};
  MPI_Datatype tile = MPI_DATATYPE_NULL;
  MPI_Datatype six = MPI_DATATYPE_NULL;
  MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &tile);
  MPI_Type_contiguous(6, MPI_INT, &six);
  MPI_Type_commit(&tile);
  MPI_Type_commit(&six);
  owned.push_back(tile);
  owned.push_back(six);
  const TypeMap subarray{tile, {{24, 12}, {44, 12}}, 80};
  const TypeMap contig{six, {{0, 24}}, 24};
  return {"subarray->contig", subarray, contig};
}

enum class Kind { alltoall, alltoallv, allgather, allgatherv, alltoallw };

inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::alltoall:
      return "alltoall";
    case Kind::alltoallv:
      return "alltoallv";
    case Kind::allgather:
      return "allgather";
    case Kind::allgatherv:
      return "allgatherv";
    case Kind::alltoallw:
      return "alltoallw";
  }
  return "?";
}

inline bool per_edge(Kind k) {
  return k == Kind::alltoall || k == Kind::alltoallv || k == Kind::alltoallw;
}
inline bool variable(Kind k) {
  return k == Kind::alltoallv || k == Kind::allgatherv || k == Kind::alltoallw;
}

// Whether some rank's out-list names one destination twice.
inline bool has_duplicate_edges(const Graph& g) {
  for (auto out : g.out) {
    std::sort(out.begin(), out.end());
    if (std::adjacent_find(out.begin(), out.end(), [](int a, int b) { return a == b && a != MPI_PROC_NULL; }) !=
        out.end())
      return true;
  }
  return false;
}

// Where the MPI's own collective gives the standard's answer, so that it can
// be a third opinion (and the MPI_ call is run where it is still the MPI's):
// Open MPI 4.1.4 crashes on MPI_PROC_NULL neighbours and hangs on a rank with
// in-neighbours and no out-neighbours (README, Known issues); MPICH 4.0.2's
// neighbor alltoall (not alltoallv) fills the slots of duplicate edges
// between one pair in reverse order. Cartesian communicators: both handle
// the borders (MPI_PROC_NULL); where a periodic dimension of 1 or 2
// processes names a peer twice, neither pairs alltoall(v) blocks as the
// standard says throughout (seen: Open MPI 4.1.4's nonblocking calls and
// MPICH 4.0.2's alltoallv swap every such pair; MPICH's alltoall reverses
// a peer's slots, wrong where a rank is its own neighbour in 2 dimensions;
// Open MPI's blocking calls are right).
inline bool native_works(const Graph& g, Kind k) {
  // MPICH 4.0's own alltoallw is no reference here at all: it differs from
  // the closed form on the random graphs (self and duplicate edges, with and
  // without MPI_BOTTOM) and its nonblocking form fails on the chain, where
  // nbrcoll's result equals the closed form and the point-to-point reference.
  if (mpich_40() && k == Kind::alltoallw) return false;
  if (g.cartesian) return !per_edge(k) || !has_duplicate_edges(g);
  if (mpich_40()) return k != Kind::alltoall || !has_duplicate_edges(g);
  if (!open_mpi_41()) return true;
  if (g.has_null) return false;
  for (std::size_t r = 0; r < g.in.size(); ++r) {
    if (!g.in[r].empty() && g.out[r].empty()) return false;
  }
  return true;
}

// MPICH 4.0.2's MPI_Testall answers MPI_ERR_IN_STATUS once a persistent
// request in it has completed (MPI_Test, MPI_Testany, MPI_Testsome do not):
// the tests use MPI_Testall on persistent requests only where it is not the MPI's.
inline bool testall_persistent_works() {
  return !mpich_40() || interposed("MPI_Testall");
}

struct Call {
  Kind kind = Kind::alltoall;
  const Graph* graph = nullptr;
  const TypePair* types = nullptr;  // alltoallw: the name only
  int count = 1;                    // elements per block (the v and w variants derive theirs from it)
  unsigned salt = 0;                // changes the send data only (persistent restarts)
  // alltoallw: each edge's send and receive types, picked from this list by
  // the edge and `shape`; with `bottom` both buffers are MPI_BOTTOM and the
  // displacements absolute addresses.
  const std::vector<TypePair>* per_edge_types = nullptr;
  unsigned shape = 0;
  bool bottom = false;
};

// The type pair of rank s's out-edge j (alltoallw: its own, else the call's).
inline const TypePair& edge_types(const Call& c, int s, std::size_t j) {
  if (c.kind != Kind::alltoallw) return *c.types;
  const std::vector<TypePair>& pool = *c.per_edge_types;
  return pool[(static_cast<std::size_t>(s) * 5 + j * 3 + c.shape) % pool.size()];
}

// Elements that `s` sends on its out-edge `j` (alltoall) or in its one block (allgather).
inline int block_count(const Call& c, int s, std::size_t j) {
  switch (c.kind) {
    case Kind::alltoall:
    case Kind::allgather:
      return c.count;
    case Kind::alltoallv:
    case Kind::alltoallw: {
      const int pick[4] = {0, 1, 3, c.count};  // zero and odd counts
      return pick[(static_cast<std::size_t>(s) * 7 + j * 13 + static_cast<std::size_t>(c.count)) % 4];
    }
    case Kind::allgatherv:
      return s % 3 == 1 ? 0 : c.count + s % 2;
  }
  return 0;
}

// The k-th occurrence of a source in a receiver's in-list pairs with the k-th
// occurrence of the receiver in the source's out-list (duplicate edges match
// in list order); on a Cartesian communicator slot i of r gets the sender's
// out-edge i ^ 1 (its -1 neighbour's block towards +1, and vice versa).
// Returns the sender's out-edge index for slot `i` of `r`.
inline std::size_t paired_edge(const Graph& g, int r, std::size_t i) {
  const auto& in = g.in[static_cast<std::size_t>(r)];
  const int s = in[i];
  if (g.cartesian) {
    if (g.out[static_cast<std::size_t>(s)].at(i ^ 1U) == r) return i ^ 1U;
    std::fprintf(stderr, "[rank %d] Cartesian test graph is not consistent\n", g_rank);
    std::abort();
  }
  std::size_t k = 0;
  for (std::size_t x = 0; x < i; ++x) k += in[x] == s ? 1 : 0;
  const auto& out = g.out[static_cast<std::size_t>(s)];
  for (std::size_t j = 0; j < out.size(); ++j) {
    if (out[j] == r && k-- == 0) return j;
  }
  std::fprintf(stderr, "[rank %d] test graph is not consistent\n", g_rank);
  std::abort();
}

// Counts and displacements (in elements of the type's extent) of one side;
// every block's byte offset, type and type map (alltoallw: the block's own
// type, displacements in bytes only).
struct Side {
  std::vector<int> counts;
  std::vector<int> displs;
  std::vector<MPI_Aint> at;
  std::vector<MPI_Datatype> types;
  std::vector<const TypeMap*> maps;
  std::size_t bytes = 0;
};

inline void finish_side(Side& side, int elements, const TypeMap& t) {
  // A tail: never a NULL buffer (MPICH rejects one even with nothing to move),
  // and on the receive side more bytes that must stay untouched.
  side.bytes = static_cast<std::size_t>(elements) * t.extent + 8;
  for (std::size_t x = 0; x < side.counts.size(); ++x) {
    side.at.push_back(static_cast<MPI_Aint>(side.displs[x]) * static_cast<MPI_Aint>(t.extent));
    side.types.push_back(t.type);
    side.maps.push_back(&t);
  }
  // An empty vector's data() may be NULL, which MPIs reject as arrays.
  side.counts.reserve(1);
  side.displs.reserve(1);
  side.at.reserve(1);
  side.types.reserve(1);
}

// Alltoallw: block x of `map_of(x)` at a byte offset, in reverse order, an
// 8- or 16-byte gap after each (offsets stay 8-aligned).
template <class MapOf>
void per_block_side(Side& side, std::size_t blocks, MapOf map_of) {
  side.at.assign(blocks, 0);
  side.types.assign(blocks, MPI_DATATYPE_NULL);
  side.maps.assign(blocks, nullptr);
  std::size_t end = 0;
  for (std::size_t x = blocks; x-- > 0;) {
    const TypeMap& t = map_of(x);
    side.at[x] = static_cast<MPI_Aint>(end);
    side.types[x] = t.type;
    side.maps[x] = &t;
    end += static_cast<std::size_t>(side.counts[x]) * t.extent + 8 + 8 * (x % 2);
    end = (end + 7) / 8 * 8;
  }
  side.bytes = end + 8;
  side.counts.reserve(1);
  side.at.reserve(1);
  side.types.reserve(1);
}

// alltoall: blocks in edge order; alltoallv: in reverse edge order with a
// one-element gap after each; allgather(v): one block at 0.
inline Side send_side(const Call& c, int s) {
  Side side;
  const std::size_t blocks = per_edge(c.kind) ? c.graph->out[static_cast<std::size_t>(s)].size() : 1;
  if (c.kind == Kind::alltoallw) {
    for (std::size_t x = 0; x < blocks; ++x) side.counts.push_back(block_count(c, s, x));
    per_block_side(side, blocks, [&](std::size_t x) -> const TypeMap& { return edge_types(c, s, x).send; });
    return side;
  }
  int end = 0;
  side.counts.resize(blocks);
  side.displs.resize(blocks);
  for (std::size_t x = blocks; x-- > 0;) {
    side.counts[x] = block_count(c, s, x);
    side.displs[x] = c.kind == Kind::alltoall ? static_cast<int>(x) * c.count : (c.kind == Kind::alltoallv ? end : 0);
    end = std::max(end, side.displs[x] + side.counts[x] + (c.kind == Kind::alltoallv ? 1 : 0));
  }
  finish_side(side, end, c.types->send);
  return side;
}

// alltoall / allgather: slot i at i * count; the v variants: slots in reverse
// order with one or two elements of gap after each (non-monotone
// displacements). An MPI_PROC_NULL slot has a count too, and must stay untouched.
inline Side recv_side(const Call& c, int r) {
  Side side;
  const auto& in = c.graph->in[static_cast<std::size_t>(r)];
  if (c.kind == Kind::alltoallw) {
    // An MPI_PROC_NULL slot has a count and a type too, and must stay untouched.
    const std::vector<TypePair>& pool = *c.per_edge_types;
    const auto map_of = [&](std::size_t i) -> const TypeMap& {
      const int s = in[i];
      return s == MPI_PROC_NULL ? pool[i % pool.size()].recv : edge_types(c, s, paired_edge(*c.graph, r, i)).recv;
    };
    for (std::size_t i = 0; i < in.size(); ++i)
      side.counts.push_back(in[i] == MPI_PROC_NULL ? 2 : block_count(c, in[i], paired_edge(*c.graph, r, i)));
    per_block_side(side, in.size(), map_of);
    return side;
  }
  int end = 0;
  side.counts.resize(in.size());
  side.displs.resize(in.size());
  for (std::size_t i = in.size(); i-- > 0;) {
    const int s = in[i];
    if (!variable(c.kind)) {
      side.counts[i] = c.count;
      side.displs[i] = static_cast<int>(i) * c.count;
      end = std::max(end, side.displs[i] + c.count);
      continue;
    }
    side.counts[i] = s == MPI_PROC_NULL ? 2 : block_count(c, s, per_edge(c.kind) ? paired_edge(*c.graph, r, i) : 0);
    side.displs[i] = end;
    end += side.counts[i] + 1 + static_cast<int>(i % 2);
  }
  finish_side(side, end, c.types->recv);
  return side;
}

// Every byte of rank s's send buffer, gaps included.
inline std::vector<unsigned char> send_data(const Call& c, int s, std::size_t bytes) {
  std::vector<unsigned char> b(bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    b[i] = static_cast<unsigned char>((s * 131 + static_cast<int>(i % 251) * 7 + static_cast<int>(c.salt) * 29 + 1) &
                                      0xFF);
  return b;
}

// The closed form of rank r's receive area (guards included): each slot gets
// its paired block's type-map bytes, everything else keeps kGuard.
inline std::vector<unsigned char> expected_area(const Call& c, int r) {
  const Side rs = recv_side(c, r);
  std::vector<unsigned char> area(rs.bytes + 2 * kGuardBytes, kGuard);
  const auto& in = c.graph->in[static_cast<std::size_t>(r)];
  std::map<int, std::pair<Side, std::vector<unsigned char>>> senders;  // each sender's side and data, once
  for (std::size_t i = 0; i < in.size(); ++i) {
    const int s = in[i];
    if (s == MPI_PROC_NULL) continue;
    const std::size_t j = per_edge(c.kind) ? paired_edge(*c.graph, r, i) : 0;
    if (senders.count(s) == 0) {
      Side side = send_side(c, s);
      std::vector<unsigned char> bytes = send_data(c, s, side.bytes);
      senders.emplace(s, std::make_pair(std::move(side), std::move(bytes)));
    }
    const auto& [ss, data] = senders.at(s);
    const TypeMap& st = *ss.maps[j];
    const TypeMap& rt = *rs.maps[i];
    std::vector<unsigned char> packed;
    for (int e = 0; e < ss.counts[j]; ++e) {
      const std::size_t base = static_cast<std::size_t>(ss.at[j]) + static_cast<std::size_t>(e) * st.extent;
      for (const auto& [off, len] : st.pieces) packed.insert(packed.end(), &data[base + off], &data[base + off] + len);
    }
    std::size_t next = 0;
    for (int e = 0; e < rs.counts[i]; ++e) {
      const std::size_t base =
          kGuardBytes + static_cast<std::size_t>(rs.at[i]) + static_cast<std::size_t>(e) * rt.extent;
      for (const auto& [off, len] : rt.pieces) {
        for (std::size_t b = 0; b < len; ++b) area[base + off + b] = packed[next++];
      }
    }
  }
  return area;
}

// This rank's buffers for one call.
struct Run {
  Call call;
  Side sends;
  Side recvs;
  std::vector<unsigned char> send;
  std::vector<unsigned char> area;
  // Alltoallw's displacements: the sides' byte offsets, or with MPI_BOTTOM
  // the blocks' absolute addresses.
  std::vector<MPI_Aint> w_sdispls;
  std::vector<MPI_Aint> w_rdispls;
  explicit Run(const Call& c)
      : call(c),
        sends(send_side(c, my_rank(*c.graph))),
        recvs(recv_side(c, my_rank(*c.graph))),
        area(recvs.bytes + 2 * kGuardBytes) {
    refill(c.salt);
    MPI_Aint send_base = 0;
    MPI_Aint recv_base = 0;
    if (c.bottom) {
      MPI_Get_address(send.data(), &send_base);
      MPI_Get_address(recv(), &recv_base);
    }
    for (const MPI_Aint at : sends.at) w_sdispls.push_back(send_base + at);
    for (const MPI_Aint at : recvs.at) w_rdispls.push_back(recv_base + at);
    w_sdispls.reserve(1);
    w_rdispls.reserve(1);
  }
  unsigned char* recv() { return area.data() + kGuardBytes; }
  // New send data in the same buffer (persistent requests keep the address), fresh guards.
  void refill(unsigned salt) {
    call.salt = salt;
    const std::vector<unsigned char> d = send_data(call, my_rank(*call.graph), sends.bytes);
    send.resize(d.size());
    std::copy(d.begin(), d.end(), send.begin());
    std::fill(area.begin(), area.end(), kGuard);
  }
  void verify(const std::string& what) const {
    check(area == expected_area(call, my_rank(*call.graph)), what + ": receive area differs from the closed form");
  }
};

// How a test program waits for one request; the data tests rotate through all.
enum class Done { wait, test, waitall, waitany, waitsome, testall, testany, testsome, get_status, count };

inline const char* done_name(Done d) {
  static const char* names[] = {"Wait",    "Test",    "Waitall",  "Waitany",           "Waitsome",
                                "Testall", "Testany", "Testsome", "Request_get_status"};
  return names[static_cast<int>(d)];
}

// Completes *req with `how` (loops for the Test forms; Request_get_status
// leaves the request to an MPI_Wait). Returns the first error code seen.
inline int complete(MPI_Request* req, Done how) {
  int index = 0;
  int out = 0;
  switch (how) {
    case Done::wait:
      return MPI_Wait(req, MPI_STATUS_IGNORE);
    case Done::waitall:
      return MPI_Waitall(1, req, MPI_STATUSES_IGNORE);
    case Done::waitany:
      return MPI_Waitany(1, req, &index, MPI_STATUS_IGNORE);
    case Done::waitsome:
      return MPI_Waitsome(1, req, &out, &index, MPI_STATUSES_IGNORE);
    case Done::test:
      return until_flag([&](int* f) { return MPI_Test(req, f, MPI_STATUS_IGNORE); });
    case Done::testall:
      return until_flag([&](int* f) { return MPI_Testall(1, req, f, MPI_STATUSES_IGNORE); });
    case Done::testany:
      return until_flag([&](int* f) { return MPI_Testany(1, req, &index, f, MPI_STATUS_IGNORE); });
    case Done::testsome:
      return until_flag([&](int* f) { return MPI_Testsome(1, req, f, &index, MPI_STATUSES_IGNORE); });
    case Done::get_status: {
      const int rc = until_flag([&](int* f) { return MPI_Request_get_status(*req, f, MPI_STATUS_IGNORE); });
      return rc != MPI_SUCCESS ? rc : MPI_Wait(req, MPI_STATUS_IGNORE);
    }
    case Done::count:
      break;
  }
  return MPI_ERR_OTHER;
}

// A run's arguments, as the calls below take them.
struct Args {
  const void* s;
  void* r;
  MPI_Datatype st;
  MPI_Datatype rt;
  const int* sc;
  const int* sd;
  const int* rc;
  const int* rd;
  int n;
  explicit Args(Run& run)
      : s(run.send.data()),
        r(run.recv()),
        st(run.call.types->send.type),
        rt(run.call.types->recv.type),
        sc(run.sends.counts.data()),
        sd(run.sends.displs.data()),
        rc(run.recvs.counts.data()),
        rd(run.recvs.displs.data()),
        n(run.call.count) {}
};

// Alltoallw's buffers: MPI_BOTTOM where the displacements are addresses.
inline const void* w_send(Run& run) {
  return run.call.bottom ? MPI_BOTTOM : run.send.data();
}
inline void* w_recv(Run& run) {
  return run.call.bottom ? MPI_BOTTOM : run.recv();
}

// Posts the call through MPI_ (pmpi false) or PMPI_: blocking when req is null.
inline int post(Run& run, bool pmpi, MPI_Comm g, MPI_Request* req) {
  const auto [s, r, st, rt, sc, sd, rc, rd, n] = Args(run);
  switch (run.call.kind) {
    case Kind::alltoallw: {
      const MPI_Aint* wsd = run.w_sdispls.data();
      const MPI_Aint* wrd = run.w_rdispls.data();
      const MPI_Datatype* wst = run.sends.types.data();
      const MPI_Datatype* wrt = run.recvs.types.data();
      if (req == nullptr)
        return (pmpi ? PMPI_Neighbor_alltoallw : MPI_Neighbor_alltoallw)(w_send(run), sc, wsd, wst, w_recv(run), rc,
                                                                         wrd, wrt, g);
      return (pmpi ? PMPI_Ineighbor_alltoallw : MPI_Ineighbor_alltoallw)(w_send(run), sc, wsd, wst, w_recv(run), rc,
                                                                         wrd, wrt, g, req);
    }
    case Kind::alltoall:
      if (req == nullptr) return (pmpi ? PMPI_Neighbor_alltoall : MPI_Neighbor_alltoall)(s, n, st, r, n, rt, g);
      return (pmpi ? PMPI_Ineighbor_alltoall : MPI_Ineighbor_alltoall)(s, n, st, r, n, rt, g, req);
    case Kind::alltoallv:
      if (req == nullptr)
        return (pmpi ? PMPI_Neighbor_alltoallv : MPI_Neighbor_alltoallv)(s, sc, sd, st, r, rc, rd, rt, g);
      return (pmpi ? PMPI_Ineighbor_alltoallv : MPI_Ineighbor_alltoallv)(s, sc, sd, st, r, rc, rd, rt, g, req);
    case Kind::allgather:
      if (req == nullptr) return (pmpi ? PMPI_Neighbor_allgather : MPI_Neighbor_allgather)(s, n, st, r, n, rt, g);
      return (pmpi ? PMPI_Ineighbor_allgather : MPI_Ineighbor_allgather)(s, n, st, r, n, rt, g, req);
    case Kind::allgatherv:
      if (req == nullptr)
        return (pmpi ? PMPI_Neighbor_allgatherv : MPI_Neighbor_allgatherv)(s, sc[0], st, r, rc, rd, rt, g);
      return (pmpi ? PMPI_Ineighbor_allgatherv : MPI_Ineighbor_allgatherv)(s, sc[0], st, r, rc, rd, rt, g, req);
  }
  return MPI_ERR_OTHER;
}

#if MPI_VERSION >= 4
// The large-count form (MPI 4, MPI_..._c) through MPI_: `mode` 0 blocking, 1
// nonblocking (req), 2 persistent (req). The wide arrays live in `wide`
// until the call completes.
struct WideArgs {
  std::vector<MPI_Count> sc, rc;
  std::vector<MPI_Aint> sd, rd;
  explicit WideArgs(const Run& run)
      : sc(run.sends.counts.begin(), run.sends.counts.end()),
        rc(run.recvs.counts.begin(), run.recvs.counts.end()),
        sd(run.sends.displs.begin(), run.sends.displs.end()),
        rd(run.recvs.displs.begin(), run.recvs.displs.end()) {
    sc.reserve(1);
    rc.reserve(1);
    sd.reserve(1);
    rd.reserve(1);
  }
};

inline int post_large(Run& run, const WideArgs& w, int mode, MPI_Comm g, MPI_Request* req) {
  const auto [s, r, st, rt, sc, sd, rc, rd, n] = Args(run);
  (void)sc, (void)sd, (void)rc, (void)rd;
  const MPI_Count c = n;
  const MPI_Info info = MPI_INFO_NULL;
  switch (run.call.kind) {
    case Kind::alltoall:
      if (mode == 0) return MPI_Neighbor_alltoall_c(s, c, st, r, c, rt, g);
      if (mode == 1) return MPI_Ineighbor_alltoall_c(s, c, st, r, c, rt, g, req);
      return MPI_Neighbor_alltoall_init_c(s, c, st, r, c, rt, g, info, req);
    case Kind::alltoallv:
      if (mode == 0)
        return MPI_Neighbor_alltoallv_c(s, w.sc.data(), w.sd.data(), st, r, w.rc.data(), w.rd.data(), rt, g);
      if (mode == 1)
        return MPI_Ineighbor_alltoallv_c(s, w.sc.data(), w.sd.data(), st, r, w.rc.data(), w.rd.data(), rt, g, req);
      return MPI_Neighbor_alltoallv_init_c(s, w.sc.data(), w.sd.data(), st, r, w.rc.data(), w.rd.data(), rt, g, info,
                                           req);
    case Kind::allgather:
      if (mode == 0) return MPI_Neighbor_allgather_c(s, c, st, r, c, rt, g);
      if (mode == 1) return MPI_Ineighbor_allgather_c(s, c, st, r, c, rt, g, req);
      return MPI_Neighbor_allgather_init_c(s, c, st, r, c, rt, g, info, req);
    case Kind::allgatherv:
      if (mode == 0) return MPI_Neighbor_allgatherv_c(s, w.sc[0], st, r, w.rc.data(), w.rd.data(), rt, g);
      if (mode == 1) return MPI_Ineighbor_allgatherv_c(s, w.sc[0], st, r, w.rc.data(), w.rd.data(), rt, g, req);
      return MPI_Neighbor_allgatherv_init_c(s, w.sc[0], st, r, w.rc.data(), w.rd.data(), rt, g, info, req);
    case Kind::alltoallw:
      break;  // its _c form is not posted here: MPI_ERR_OTHER
  }
  return MPI_ERR_OTHER;
}

#endif

#if NBRCOLL_PERSISTENT
// The persistent form as a program makes it (MPI 4's MPI_Neighbor_*_init, or
// Open MPI's extension MPIX_Neighbor_*_init where the MPI has only that:
// src/support/persistent_forms.h) or, with `pmpi`, the MPI's own (PMPI_,
// PMPIX_).
inline int post_init(Run& run, bool pmpi, MPI_Comm g, MPI_Request* req) {
  const auto [s, r, st, rt, sc, sd, rc, rd, n] = Args(run);
  const MPI_Info info = MPI_INFO_NULL;
  const nbrcoll::NeighborInits& f = nbrcoll::program_inits(pmpi);
  switch (run.call.kind) {
    case Kind::alltoallw:
      return f.alltoallw(w_send(run), sc, run.w_sdispls.data(), run.sends.types.data(), w_recv(run), rc,
                         run.w_rdispls.data(), run.recvs.types.data(), g, info, req);
    case Kind::alltoall:
      return f.alltoall(s, n, st, r, n, rt, g, info, req);
    case Kind::alltoallv:
      return f.alltoallv(s, sc, sd, st, r, rc, rd, rt, g, info, req);
    case Kind::allgather:
      return f.allgather(s, n, st, r, n, rt, g, info, req);
    case Kind::allgatherv:
      return f.allgatherv(s, sc[0], st, r, rc, rd, rt, g, info, req);
  }
  return MPI_ERR_OTHER;
}

// The name of a kind's persistent form as a program calls it
// ("MPIX_Neighbor_alltoall_init" under Open MPI 4.1).
inline std::string init_name(const char* kind) {
  return std::string(nbrcoll::program_inits(false).prefix) + "Neighbor_" + kind + "_init";
}
inline std::vector<std::string> init_names(const std::vector<const char*>& kinds) {
  std::vector<std::string> names;
  for (const char* k : kinds) names.push_back(init_name(k));
  return names;
}
#endif

// The reference: the same arguments as plain PMPI messages over this rank's
// lists on `ref` (a communicator without topology whose ranks are the
// graph's: a duplicate of MPI_COMM_WORLD for graphs made there without
// reordering). Messages between one pair match in posting order, which is
// the standard's rule for duplicate edges; on a Cartesian communicator a
// message carries the slot it fills as its tag (out-edge j fills slot
// j ^ 1). MPI_PROC_NULL ends move nothing.
inline int p2p_reference(Run& run, MPI_Comm ref) {
  const Call& c = run.call;
  const bool cartesian = c.graph->cartesian;
  const auto& in = c.graph->in[static_cast<std::size_t>(my_rank(*c.graph))];
  const auto& out = c.graph->out[static_cast<std::size_t>(my_rank(*c.graph))];
  std::vector<MPI_Request> reqs;
  for (std::size_t i = 0; i < in.size(); ++i) {
    reqs.emplace_back();
    PMPI_Irecv(run.recv() + run.recvs.at[i], run.recvs.counts[i], run.recvs.types[i], in[i],
               cartesian ? static_cast<int>(i) : 7, ref, &reqs.back());
  }
  for (std::size_t j = 0; j < out.size(); ++j) {
    const std::size_t b = per_edge(c.kind) ? j : 0;
    reqs.emplace_back();
    PMPI_Isend(run.send.data() + run.sends.at[b], run.sends.counts[b], run.sends.types[b], out[j],
               cartesian ? static_cast<int>(j ^ 1U) : 7, ref, &reqs.back());
  }
  return PMPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
}

}  // namespace nbt
