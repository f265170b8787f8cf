#include "bench/neighbor_call.h"

#include <climits>
#include <stdexcept>
#include <string>

#include "src/support/persistent_forms.h"

namespace nbrbench {

namespace {

int to_int(std::size_t v, const char* what) {
  if (v > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error(std::string(what) + " above INT_MAX bytes (" + std::to_string(v) + ")");
  return static_cast<int>(v);
}

// Counts and displacements of `blocks`, displacements relative to `origin`;
// one zero entry when there are none.
void counts_of(const std::vector<Block>& blocks, std::size_t origin, std::vector<int>& counts,
               std::vector<int>& displs) {
  for (const Block& b : blocks) {
    counts.push_back(to_int(b.bytes, "a block"));
    displs.push_back(to_int(b.offset - origin, "a displacement"));
  }
  if (counts.empty()) {
    counts.push_back(0);
    displs.push_back(0);
  }
}

// The persistent form of `kind` as a program calls it: MPI 4's
// MPI_Neighbor_<kind>_init, or Open MPI's MPIX_Neighbor_<kind>_init where the
// MPI has only that extension (src/support/persistent_forms.h).
#if NBRCOLL_PERSISTENT
#define NBRBENCH_INIT(kind) nbrcoll::program_inits(false).kind
#else
// Never called: NeighborCall refuses Mode::kPersistent first.
constexpr auto kNoInit = [](auto&&...) -> int { throw std::logic_error("no persistent collectives in this MPI"); };
#define NBRBENCH_INIT(kind) kNoInit
#endif

}  // namespace

bool persistent_available() {
  return NBRCOLL_PERSISTENT != 0;
}

NeighborCall::NeighborCall(Op op, Mode mode, const Exchange& ex, const void* send, void* recv, MPI_Comm comm)
    : op_(op), mode_(mode), comm_(comm), send_(send), recv_(static_cast<char*>(recv) + ex.guard) {
  if (mode == Mode::kPersistent && !persistent_available())
    throw std::runtime_error(
        "persistent neighbourhood collectives need MPI 4 (MPI_Neighbor_*_init) or Open MPI's extension "
        "(MPIX_Neighbor_*_init); this build's MPI is " +
        std::to_string(MPI_VERSION) + "." + std::to_string(MPI_SUBVERSION) + " without it");
  counts_of(ex.send, 0, send_counts_, send_displs_);
  counts_of(ex.recv, ex.guard, recv_counts_, recv_displs_);
  // A side with no blocks passes the other side's count, not 0: Open MPI
  // 4.1.4's MPI_Neighbor_allgather returns at once when sendcount or
  // recvcount is 0, so a rank with no in-neighbours passing 0 never sent its
  // block and its out-neighbours waited for ever (native column, 2 ranks).
  if (ex.recv.empty()) recv_counts_[0] = send_counts_[0];
  if (ex.send.empty()) send_counts_[0] = recv_counts_[0];
  if (mode == Mode::kPersistent && issue(mode) != MPI_SUCCESS) throw std::runtime_error("MPI_Neighbor_*_init failed");
}

NeighborCall::~NeighborCall() {
  if (req_ != MPI_REQUEST_NULL) MPI_Request_free(&req_);
}

void NeighborCall::start() {
  if (mode_ == Mode::kPersistent)
    MPI_Start(&req_);
  else
    issue(mode_);
}

void NeighborCall::wait() {
  if (mode_ != Mode::kBlocking) MPI_Wait(&req_, MPI_STATUS_IGNORE);
}

int NeighborCall::issue(Mode mode) {
  // One argument list per op, whatever the mode: the blocking, nonblocking
  // and persistent functions differ only in their trailing arguments.
  auto call = [&](auto blocking, auto nonblocking, auto init, auto... args) {
    if (mode == Mode::kBlocking) return blocking(args..., comm_);
    if (mode == Mode::kNonblocking) return nonblocking(args..., comm_, &req_);
    return init(args..., comm_, MPI_INFO_NULL, &req_);
  };
  // Non-v variants: every block has the first one's size (the same on every edge).
  const int sc = send_counts_[0], rc = recv_counts_[0];
  const int *scs = send_counts_.data(), *sds = send_displs_.data();
  const int *rcs = recv_counts_.data(), *rds = recv_displs_.data();
  switch (op_) {
    case Op::kAllgather:
      return call(MPI_Neighbor_allgather, MPI_Ineighbor_allgather, NBRBENCH_INIT(allgather), send_, sc, MPI_BYTE, recv_,
                  rc, MPI_BYTE);
    case Op::kAllgatherv:
      return call(MPI_Neighbor_allgatherv, MPI_Ineighbor_allgatherv, NBRBENCH_INIT(allgatherv), send_, sc, MPI_BYTE,
                  recv_, rcs, rds, MPI_BYTE);
    case Op::kAlltoall:
      return call(MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall, NBRBENCH_INIT(alltoall), send_, sc, MPI_BYTE, recv_,
                  rc, MPI_BYTE);
    case Op::kAlltoallv:
      return call(MPI_Neighbor_alltoallv, MPI_Ineighbor_alltoallv, NBRBENCH_INIT(alltoallv), send_, scs, sds, MPI_BYTE,
                  recv_, rcs, rds, MPI_BYTE);
  }
  throw std::logic_error("unknown op");
}

}  // namespace nbrbench
