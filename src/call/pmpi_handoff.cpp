#include "call/pmpi_handoff.h"

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "call/large_counts.h"

namespace nbrcoll {

bool topology_degrees(MPI_Comm comm, int& in, int& out) {
  int topo = MPI_UNDEFINED;
  if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS) return false;
  if (topo == MPI_DIST_GRAPH) {
    int weighted = 0;
    return PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted) == MPI_SUCCESS;
  }
  int rank = 0;
  if (topo == MPI_GRAPH) {
    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Graph_neighbors_count(comm, rank, &in) != MPI_SUCCESS)
      return false;
    out = in;
    return true;
  }
  if (topo == MPI_CART) {
    if (PMPI_Cartdim_get(comm, &in) != MPI_SUCCESS) return false;
    in *= 2;
    out = in;
    return true;
  }
  return false;
}

namespace {

std::int64_t bytes(int count, MPI_Datatype type) {
  MPI_Count size = 0;  // _x: a type may hold more than INT_MAX bytes
  PMPI_Type_size_x(type, &size);
  return static_cast<std::int64_t>(count) * static_cast<std::int64_t>(size);
}

// `n` blocks of `count` elements, one after the other: the layout of the
// non-v call. At least one entry each, so that no array is null.
struct Blocks {
  std::vector<int> counts;
  std::vector<int> displs;
};

// `n` blocks of `count` into `b`; false when a displacement does not fit an int.
bool make_blocks(int n, int count, Blocks& b) {
  if (n > 1 && count > 0 && static_cast<long long>(n - 1) * count > INT_MAX) return false;
  b.counts.assign(static_cast<std::size_t>(n > 0 ? n : 1), count);
  b.displs.resize(b.counts.size());
  for (std::size_t i = 0; i < b.displs.size(); ++i) b.displs[i] = static_cast<int>(i) * count;
  return true;
}

// Kept for the life of the process: a nonblocking call reads its arrays
// until it completes, a persistent one until it is freed. One entry per
// (n, count); after kLastingShapes of them, or when a displacement does not
// fit an int, null.
constexpr std::size_t kLastingShapes = 64;
const Blocks* lasting_blocks(int n, int count) {
  static std::mutex mutex;
  static std::map<std::pair<int, int>, std::unique_ptr<const Blocks>> shapes;
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = shapes.find({n, count});
  if (it != shapes.end()) return it->second.get();
  auto blocks = std::make_unique<Blocks>();
  if (shapes.size() >= kLastingShapes || !make_blocks(n, count, *blocks)) return nullptr;
  return shapes.emplace(std::pair(n, count), std::move(blocks)).first->second.get();
}

// Counts and types the MPI's own argument checks would pass (the rest goes
// to it unchanged, to be reported as it would be).
bool plain_arguments(const UserCall& c) {
  return c.sendcount >= 0 && c.recvcount >= 0 && c.sendtype != MPI_DATATYPE_NULL && c.recvtype != MPI_DATATYPE_NULL &&
         c.sendbuf != MPI_IN_PLACE && c.recvbuf != MPI_IN_PLACE;
}

// The v form's arrays for a call Open MPI 4.1.4 gets wrong as it stands
// (see the header); false for every other call, and for a nonblocking or
// persistent one whose arrays cannot be kept (it goes unchanged). A
// blocking call's arrays may live in `local`. Allgather needs receive
// arrays only.
bool v_form(const UserCall& c, Mode mode, const Blocks*& receives, const Blocks*& sends, Blocks (&local)[2]) {
  if (!plain_arguments(c) || (c.kind != Kind::kAllgather && c.kind != Kind::kAlltoall)) return false;
  if (c.kind == Kind::kAllgather && c.sendcount != 0 && c.recvcount != 0) return false;
  if (c.kind == Kind::kAlltoall) {
    const std::int64_t send = bytes(c.sendcount, c.sendtype);
    if (send == bytes(c.recvcount, c.recvtype) && send != 0) return false;
  }
  int in = 0;
  int out = 0;
  if (!topology_degrees(c.comm, in, out)) return false;
  const auto arrays = [mode](int n, int count, Blocks& scratch) -> const Blocks* {
    if (const Blocks* kept = lasting_blocks(n, count)) return kept;
    return mode == Mode::kBlocking && make_blocks(n, count, scratch) ? &scratch : nullptr;
  };
  receives = arrays(in, c.recvcount, local[0]);
  sends = c.kind == Kind::kAlltoall ? arrays(out, c.sendcount, local[1]) : nullptr;
  return receives != nullptr && (c.kind == Kind::kAllgather || sends != nullptr);
}

// MPI_Neighbor_alltoallw in `mode`, as it is (Open MPI 4.1.4 gets it right
// where it gets alltoallv right).
int issue_alltoallw(const UserCall& c, Mode mode, MPI_Info info, MPI_Request* r) {
  static const PerBlockTypes kNone;  // a call without its arrays: the MPI reports it
  const PerBlockTypes& w = c.w != nullptr ? *c.w : kNone;
  switch (mode) {
    case Mode::kBlocking:
      return PMPI_Neighbor_alltoallw(c.sendbuf, c.sendcounts, w.sdispls, w.sendtypes, c.recvbuf, c.recvcounts,
                                     w.rdispls, w.recvtypes, c.comm);
    case Mode::kNonblocking:
      return PMPI_Ineighbor_alltoallw(c.sendbuf, c.sendcounts, w.sdispls, w.sendtypes, c.recvbuf, c.recvcounts,
                                      w.rdispls, w.recvtypes, c.comm, r);
    case Mode::kPersistent:
#if NBRCOLL_PERSISTENT
      return profiling_inits(c.mpix).alltoallw(c.sendbuf, c.sendcounts, w.sdispls, w.sendtypes, c.recvbuf, c.recvcounts,
                                               w.rdispls, w.recvtypes, c.comm, info, r);
#else
      (void)info;
      break;
#endif
  }
  return MPI_ERR_INTERN;
}

// The call itself, in `mode`: as the v form where `v_form` says so; a
// large-count call as the MPI's own _c call.
int issue(const UserCall& c, Mode mode, MPI_Info info, MPI_Request* r) {
#if MPI_VERSION >= 4
  if (c.large != nullptr) return pmpi_large(c, mode, info, r);
#endif
  const Blocks* rb = nullptr;
  const Blocks* sb = nullptr;
  Blocks local[2];
  const bool v = v_form(c, mode, rb, sb, local);
  const int* rcounts = v ? rb->counts.data() : c.recvcounts;
  const int* rdispls = v ? rb->displs.data() : c.rdispls;
  const int* scounts = v && sb != nullptr ? sb->counts.data() : c.sendcounts;
  const int* sdispls = v && sb != nullptr ? sb->displs.data() : c.sdispls;
  const bool allgatherv = c.kind == Kind::kAllgatherv || (v && c.kind == Kind::kAllgather);
  const bool alltoallv = c.kind == Kind::kAlltoallv || (v && c.kind == Kind::kAlltoall);
  if (c.kind == Kind::kAlltoallw) return issue_alltoallw(c, mode, info, r);
  switch (mode) {
    case Mode::kBlocking:
      if (allgatherv) {
        return PMPI_Neighbor_allgatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, rcounts, rdispls, c.recvtype,
                                        c.comm);
      }
      if (alltoallv) {
        return PMPI_Neighbor_alltoallv(c.sendbuf, scounts, sdispls, c.sendtype, c.recvbuf, rcounts, rdispls, c.recvtype,
                                       c.comm);
      }
      if (c.kind == Kind::kAllgather)
        return PMPI_Neighbor_allgather(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm);
      return PMPI_Neighbor_alltoall(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm);
    case Mode::kNonblocking:
      if (allgatherv) {
        return PMPI_Ineighbor_allgatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, rcounts, rdispls, c.recvtype,
                                         c.comm, r);
      }
      if (alltoallv) {
        return PMPI_Ineighbor_alltoallv(c.sendbuf, scounts, sdispls, c.sendtype, c.recvbuf, rcounts, rdispls,
                                        c.recvtype, c.comm, r);
      }
      if (c.kind == Kind::kAllgather) {
        return PMPI_Ineighbor_allgather(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm,
                                        r);
      }
      return PMPI_Ineighbor_alltoall(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm, r);
    case Mode::kPersistent: {
#if NBRCOLL_PERSISTENT
      const NeighborInits& own = profiling_inits(c.mpix);
      if (allgatherv) {
        return own.allgatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, rcounts, rdispls, c.recvtype, c.comm, info,
                              r);
      }
      if (alltoallv) {
        return own.alltoallv(c.sendbuf, scounts, sdispls, c.sendtype, c.recvbuf, rcounts, rdispls, c.recvtype, c.comm,
                             info, r);
      }
      if (c.kind == Kind::kAllgather)
        return own.allgather(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm, info, r);
      return own.alltoall(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm, info, r);
#else
      (void)info;
      break;
#endif
    }
  }
  return MPI_ERR_INTERN;
}

}  // namespace

int pmpi_blocking(const UserCall& c) {
  return issue(c, Mode::kBlocking, MPI_INFO_NULL, nullptr);
}

int pmpi_nonblocking(const UserCall& c, MPI_Request* request) {
  return issue(c, Mode::kNonblocking, MPI_INFO_NULL, request);
}

#if NBRCOLL_PERSISTENT
int pmpi_persistent(const UserCall& c, MPI_Info info, MPI_Request* request) {
  return issue(c, Mode::kPersistent, info, request);
}
#endif

}  // namespace nbrcoll
