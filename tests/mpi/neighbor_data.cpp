// Differential and closed-form tests of the neighborhood collectives beyond
// the blocking allgather(v): MPI_Neighbor_alltoall(v,w), MPI_Ineighbor_*
// (allgather, allgatherv, alltoall, alltoallv, alltoallw) and the persistent
// MPI_Neighbor_*_init + MPI_Start (MPI 4; Open MPI 4.1's MPIX_Neighbor_*_init,
// its extension). A plain MPI program: every
// receive area (guard bytes around it, gaps between blocks) must equal the
// closed form byte for byte, and so must the reference moved by PMPI
// point-to-point messages and, where the MPI's own collective works on the
// graph, PMPI_Neighbor_* / PMPI_Ineighbor_* / PMPI(X)_Neighbor_*_init.
//
// Graphs: random with duplicate and self edges and MPI_PROC_NULL, random
// without, every rank empty, a star, a directed chain, a ring. Types: byte,
// int, vector <-> contiguous, resized, a struct with a gap. Counts 0 and odd;
// alltoallv with zero counts, gaps and non-monotone displacements on both
// sides. Alltoallw with a type pair per edge (those types and a subarray
// into contiguous ints), zero counts, byte displacements in reverse order
// with gaps, and MPI_BOTTOM with absolute addresses. Nonblocking requests
// are completed by each completion call in turn.
// EXPECT_NBRCOLL=1: each of these MPI symbols must resolve into libnbrcoll.
//
// --topologies: the same calls on Cartesian and graph communicators instead
// (topologies.h: MPI_Cart_create 1-D to 3-D, periodic or not, reordered; a
// duplicate; an MPI_Cart_sub sub-grid; a grid smaller than the world;
// MPI_Graph_create with duplicate edges and self loops), fewer types. On a
// Cartesian communicator the closed form and the reference pair blocks as
// the standard says (out-edge j fills slot j ^ 1: with a periodic
// dimension of 1 or 2 processes, where the MPIs differ, the two alone judge).
// --large (MPI 4): each call also through its large-count _c form.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"
#include "tests/mpi/topologies.h"

namespace {

using namespace nbt;

bool g_large = false;  // --large: the _c forms too (MPI 4)

// The MPI_ type maps that the closed form assumes, checked against MPI_Pack.
void check_type_maps(const std::vector<TypePair>& pairs) {
  for (const TypePair& p : pairs) {
    for (const TypeMap* t : {&p.send, &p.recv}) {
      std::vector<unsigned char> data(3 * t->extent);
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 5 + 1);
      std::vector<unsigned char> want;
      for (std::size_t e = 0; e < 3; ++e) {
        for (const auto& [off, len] : t->pieces)
          want.insert(want.end(), &data[e * t->extent + off], &data[e * t->extent + off] + len);
      }
      std::vector<unsigned char> packed(want.size() + 64);
      int position = 0;
      PMPI_Pack(data.data(), 3, t->type, packed.data(), static_cast<int>(packed.size()), &position, MPI_COMM_WORLD);
      packed.resize(static_cast<std::size_t>(position));
      check(packed == want, p.name + ": the closed form's type map is not the MPI's");
    }
  }
}

// The MPI_ entry point of a kind (prefix "MPI_Neighbor_" or "MPI_Ineighbor_", suffix "" or "_init").
std::string entry(const char* prefix, Kind k, const char* suffix = "") {
  return std::string(prefix) + kind_name(k) + suffix;
}

// An MPI_ entry point runs here unless it is the MPI's own on a graph it fails on.
bool runs(const std::string& symbol, bool native) {
  return native || interposed(symbol.c_str());
}

// --only KIND: run the cases of that kind only (alltoallw, ...).
const char* g_only = nullptr;

void run_case(const Call& c, MPI_Comm g, MPI_Comm ref, bool native, int& turn) {
  if (g_only != nullptr && std::string(g_only) != kind_name(c.kind)) return;
  const std::string types = c.kind == Kind::alltoallw
                                ? "types per edge, shape " + std::to_string(c.shape) + (c.bottom ? ", MPI_BOTTOM" : "")
                                : c.types->name;
  const std::string name = std::string(kind_name(c.kind)) + " " + c.graph->name + " " + types + " count " +
                           std::to_string(c.count) + " (rank " + std::to_string(g_rank) + ")";
  Run p2p(c);
  check(p2p_reference(p2p, ref) == MPI_SUCCESS, name + ": reference messages failed");
  p2p.verify(name + ", PMPI point-to-point reference");

  if (runs(entry("MPI_Neighbor_", c.kind), native)) {
    Run blocking(c);
    check(post(blocking, false, g, nullptr) == MPI_SUCCESS, name + ": blocking call failed");
    blocking.verify(name + ", blocking");
  }
  const auto how = static_cast<Done>(turn++ % static_cast<int>(Done::count));
  MPI_Request req = MPI_REQUEST_NULL;
  if (runs(entry("MPI_Ineighbor_", c.kind), native)) {
    Run nb(c);
    check(post(nb, false, g, &req) == MPI_SUCCESS, name + ": nonblocking call failed");
    check(complete(&req, how) == MPI_SUCCESS && req == MPI_REQUEST_NULL,
          name + ": MPI_" + done_name(how) + " failed or left the request");
    nb.verify(name + ", nonblocking, MPI_" + done_name(how));
  }

  if (native) {
    Run own(c);
    check(post(own, true, g, nullptr) == MPI_SUCCESS, name + ": the MPI's own blocking call failed");
    own.verify(name + ", the MPI's own blocking call");
    Run own_nb(c);
    check(post(own_nb, true, g, &req) == MPI_SUCCESS && PMPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
          name + ": the MPI's own nonblocking call failed");
    own_nb.verify(name + ", the MPI's own nonblocking call");
  }
#if NBRCOLL_PERSISTENT
  // One persistent request started three times, new send data each time.
  const Done phow = how == Done::testall && !testall_persistent_works() ? Done::testsome : how;
  if (runs(init_name(kind_name(c.kind)), native)) {
    Run pers(c);
    check(post_init(pers, false, g, &req) == MPI_SUCCESS, name + ": persistent init failed");
    for (unsigned start = 0; start < 3; ++start) {
      pers.refill(c.salt + start);
      check(MPI_Start(&req) == MPI_SUCCESS, name + ": MPI_Start failed");
      check(complete(&req, phow) == MPI_SUCCESS && req != MPI_REQUEST_NULL,
            name + ": MPI_" + done_name(phow) + " on a persistent request failed or freed it");
      pers.verify(name + ", persistent start " + std::to_string(start) + ", MPI_" + done_name(phow));
    }
    check(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL, name + ": freeing the persistent request");
  }
  if (native) {
    Run own(c);
    check(post_init(own, true, g, &req) == MPI_SUCCESS && PMPI_Start(&req) == MPI_SUCCESS &&
              PMPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && PMPI_Request_free(&req) == MPI_SUCCESS,
          name + ": the MPI's own persistent call failed");
    own.verify(name + ", the MPI's own persistent call");
  }
#endif
#if MPI_VERSION >= 4
  // The large-count forms: blocking, nonblocking, persistent started twice.
  if (g_large && runs(entry("MPI_Neighbor_", c.kind, "_c"), native)) {
    Run big(c);
    const WideArgs w(big);
    check(post_large(big, w, 0, g, nullptr) == MPI_SUCCESS, name + ": large-count call failed");
    big.verify(name + ", large-count blocking");
    Run ibig(c);
    const WideArgs iw(ibig);
    check(post_large(ibig, iw, 1, g, &req) == MPI_SUCCESS && complete(&req, how) == MPI_SUCCESS,
          name + ": large-count nonblocking call failed");
    ibig.verify(name + ", large-count nonblocking, MPI_" + done_name(how));
    Run pbig(c);
    const WideArgs pw(pbig);
    check(post_large(pbig, pw, 2, g, &req) == MPI_SUCCESS, name + ": large-count persistent init failed");
    for (unsigned start = 0; start < 2; ++start) {
      pbig.refill(c.salt + 7 + start);
      check(MPI_Start(&req) == MPI_SUCCESS && complete(&req, phow) == MPI_SUCCESS,
            name + ": large-count persistent start failed");
      pbig.verify(name + ", large-count persistent start " + std::to_string(start));
    }
    check(MPI_Request_free(&req) == MPI_SUCCESS, name + ": freeing the large-count persistent request");
  }
#endif
}

// Every topology of topologies.h: each kind with byte, vector -> contiguous
// and a struct with a gap, counts 0 and 5, and 40001 bytes.
void run_topologies(const std::vector<TypePair>& types, int& turn, unsigned& salt) {
  expect_interposed({"MPI_Cart_create", "MPI_Cart_sub", "MPI_Graph_create"});
  std::vector<Topology> topologies = make_topologies();
  for (std::size_t n = 0; n < topologies.size(); ++n) {
    const Topology& t = topologies[n];
    if (t.comm == MPI_COMM_NULL) continue;   // this process is outside it
    salt = 1000 * static_cast<unsigned>(n);  // the same on every rank of t, whatever it skipped
    for (const Kind kind : {Kind::alltoall, Kind::alltoallv, Kind::allgather, Kind::allgatherv}) {
      const bool native = native_works(t.graph, kind);
      for (const std::size_t pick : {0, 2, 5}) {
        for (const int count : {0, 5})
          run_case({kind, &t.graph, &types[pick], count, ++salt}, t.comm, t.ref, native, turn);
      }
      run_case({kind, &t.graph, &types[0], 40001, ++salt}, t.comm, t.ref, native, turn);
    }
  }
  free_topologies(topologies);
}

#if MPI_VERSION >= 4
// Large-count calls nbrcoll cannot narrow to its int counts: every count
// 3e9 of a type of size 0 (nothing moves) and displacements past INT_MAX.
// They go to the MPI's own _c call (the trace names it), which succeeds
// and writes nothing.
void large_handoff() {
  const Graph ring = ring_graph(g_size);
  MPI_Comm g = make_graph(ring);
  MPI_Datatype nothing = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(0, MPI_INT, &nothing);
  MPI_Type_commit(&nothing);
  const auto& in = ring.in[static_cast<std::size_t>(g_rank)];
  const auto& out = ring.out[static_cast<std::size_t>(g_rank)];
  const MPI_Count huge = 3000000000LL;
  const std::vector<MPI_Count> rc(in.size(), huge);
  const std::vector<MPI_Count> sc(out.size(), huge);
  const std::vector<MPI_Aint> rd(in.size(), MPI_Aint{1} << 33);
  const std::vector<MPI_Aint> sd(out.size(), MPI_Aint{1} << 33);
  std::vector<unsigned char> send(16, 1);
  std::vector<unsigned char> area(16, kGuard);
  const auto untouched = [&area] {
    return std::all_of(area.begin(), area.end(), [](unsigned char b) { return b == kGuard; });
  };
  check(MPI_Neighbor_alltoallv_c(send.data(), sc.data(), sd.data(), nothing, area.data(), rc.data(), rd.data(), nothing,
                                 g) == MPI_SUCCESS &&
            untouched(),
        "large-count alltoallv beyond int");
  MPI_Request req = MPI_REQUEST_NULL;
  check(MPI_Ineighbor_allgatherv_c(send.data(), huge, nothing, area.data(), rc.data(), rd.data(), nothing, g, &req) ==
                MPI_SUCCESS &&
            MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS && untouched(),
        "large-count nonblocking allgatherv beyond int");
  check(MPI_Neighbor_alltoall_init_c(send.data(), huge, nothing, area.data(), huge, nothing, g, MPI_INFO_NULL, &req) ==
                MPI_SUCCESS &&
            MPI_Start(&req) == MPI_SUCCESS && MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
            MPI_Request_free(&req) == MPI_SUCCESS && untouched(),
        "large-count persistent alltoall beyond int");
  MPI_Type_free(&nothing);
  MPI_Comm_free(&g);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  bool topologies = false;
  for (int i = 1; i < argc; ++i) {
    topologies = topologies || std::strcmp(argv[i], "--topologies") == 0;
    g_large = g_large || std::strcmp(argv[i], "--large") == 0;
    if (i + 1 < argc && std::string(argv[i]) == "--only") g_only = argv[i + 1];
  }
#if MPI_VERSION >= 4
  if (g_large)
    expect_interposed({"MPI_Neighbor_allgather_c", "MPI_Neighbor_allgatherv_c", "MPI_Neighbor_alltoall_c",
                       "MPI_Neighbor_alltoallv_c", "MPI_Ineighbor_allgather_c", "MPI_Ineighbor_allgatherv_c",
                       "MPI_Ineighbor_alltoall_c", "MPI_Ineighbor_alltoallv_c", "MPI_Neighbor_allgather_init_c",
                       "MPI_Neighbor_allgatherv_init_c", "MPI_Neighbor_alltoall_init_c",
                       "MPI_Neighbor_alltoallv_init_c"});
#endif
  expect_interposed({"MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw",
                     "MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall",
                     "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw", "MPI_Wait", "MPI_Test", "MPI_Waitall",
                     "MPI_Waitany", "MPI_Waitsome", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
                     "MPI_Request_get_status"});
#if NBRCOLL_PERSISTENT
  expect_interposed(init_names({"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"}));
  expect_interposed({"MPI_Start", "MPI_Request_free"});
#endif
  std::vector<MPI_Datatype> owned;
  const std::vector<TypePair> types = make_type_pairs(owned);
  // Alltoallw's types, one pair per edge: all of the above and a subarray;
  // its large blocks take byte and int only.
  std::vector<TypePair> per_edge_types = types;
  per_edge_types.push_back(make_subarray_pair(owned));
  const std::vector<TypePair> large_types = {types[0], types[1]};
  check_type_maps(per_edge_types);
  MPI_Comm ref = MPI_COMM_NULL;
  PMPI_Comm_dup(MPI_COMM_WORLD, &ref);
  int turn = 0;
  unsigned salt = 0;
#if MPI_VERSION >= 4
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--large-handoff") == 0) {
      large_handoff();
      MPI_Comm_free(&ref);
      return finish(owned);
    }
  }
#endif
  if (topologies) {
    run_topologies(types, turn, salt);
    MPI_Comm_free(&ref);
    return finish(owned);
  }
  for (const Graph& graph : test_graphs()) {
    MPI_Comm g = make_graph(graph);
    for (const Kind kind : {Kind::alltoall, Kind::alltoallv, Kind::allgather, Kind::allgatherv}) {
      const bool native = native_works(graph, kind);
      for (const TypePair& t : types) {
        for (const int count : {0, 5}) run_case({kind, &graph, &t, count, ++salt}, g, ref, native, turn);
      }
      // Blocks above nbrcoll's default threshold (32 KiB).
      if (graph.name != "empty") run_case({kind, &graph, &types[0], 40001, ++salt}, g, ref, native, turn);
    }
    const bool native = native_works(graph, Kind::alltoallw);
    for (unsigned shape = 0; shape < 3; ++shape) {
      for (const int count : {0, 5}) {
        run_case({Kind::alltoallw, &graph, &per_edge_types[0], count, ++salt, &per_edge_types, shape}, g, ref, native,
                 turn);
      }
    }
    run_case({Kind::alltoallw, &graph, &per_edge_types[0], 3, ++salt, &per_edge_types, 1, true}, g, ref, native, turn);
    if (graph.name != "empty")
      run_case({Kind::alltoallw, &graph, &large_types[0], 40001, ++salt, &large_types, 0}, g, ref, native, turn);
    MPI_Comm_free(&g);
  }
  MPI_Comm_free(&ref);
  return finish(owned);
}
