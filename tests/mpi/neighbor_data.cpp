// Differential and closed-form tests of the neighborhood collectives beyond
// the blocking allgather(v): MPI_Neighbor_alltoall(v,w), MPI_Ineighbor_*
// (allgather, allgatherv, alltoall, alltoallv, alltoallw) and, with MPI 4, the
// persistent MPI_Neighbor_*_init + MPI_Start. A plain MPI program: every
// receive area (guard bytes around it, gaps between blocks) must equal the
// closed form byte for byte, and so must the reference moved by PMPI
// point-to-point messages and, where the MPI's own collective works on the
// graph, PMPI_Neighbor_* / PMPI_Ineighbor_*.
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
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/mpi/neighbor_case.h"
#include "tests/mpi/test_graphs.h"

namespace {

using namespace nbt;

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
#if MPI_VERSION >= 4
  // One persistent request started three times, new send data each time.
  const Done phow = how == Done::testall && !testall_persistent_works() ? Done::testsome : how;
  if (runs(entry("MPI_Neighbor_", c.kind, "_init"), native)) {
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
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  begin();
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--only") g_only = argv[i + 1];
  }
  expect_interposed({"MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw",
                     "MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall",
                     "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw", "MPI_Wait", "MPI_Test", "MPI_Waitall",
                     "MPI_Waitany", "MPI_Waitsome", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
                     "MPI_Request_get_status"});
#if MPI_VERSION >= 4
  expect_interposed({"MPI_Neighbor_allgather_init", "MPI_Neighbor_allgatherv_init", "MPI_Neighbor_alltoall_init",
                     "MPI_Neighbor_alltoallv_init", "MPI_Neighbor_alltoallw_init", "MPI_Start", "MPI_Request_free"});
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
