#include "state/handoff_vote.h"

#include <algorithm>
#include <memory>

#include "state/comm_state.h"
#include "state/pending_steps.h"
#include "support/config.h"
#include "support/log.h"
#include "transport/device/backend_loader.h"

namespace nbrcoll {

namespace {

constexpr unsigned kEveryKind = (1U << kKindCount) - 1U;

unsigned bit(Kind k) {
  return 1U << static_cast<unsigned>(k);
}

bool names_a_peer_twice(std::vector<int> list, int proc_null) {
  std::erase(list, proc_null);
  std::sort(list.begin(), list.end());
  return std::adjacent_find(list.begin(), list.end()) != list.end();
}

}  // namespace

unsigned kinds_the_mpi_runs(MpiBugs mpi, const std::vector<int>& in, const std::vector<int>& out, int proc_null) {
  switch (mpi) {
    case MpiBugs::kOpenMpi41: {
      const auto null = [proc_null](int r) { return r == proc_null; };
      if (std::any_of(in.begin(), in.end(), null) || std::any_of(out.begin(), out.end(), null)) return 0;
      if (!in.empty() && out.empty()) return 0;
      return kEveryKind & ~bit(Kind::kAlltoallw);
    }
    case MpiBugs::kMpich40: {
      unsigned kinds = kEveryKind & ~bit(Kind::kAlltoallw);
      if (names_a_peer_twice(in, proc_null) || names_a_peer_twice(out, proc_null)) kinds &= ~bit(Kind::kAlltoall);
      return kinds;
    }
    case MpiBugs::kUntested:
      return 0;
  }
  return 0;
}

MpiBugs built_mpi_bugs() {
#if defined(OPEN_MPI)
  return MpiBugs::kOpenMpi41;
#elif defined(MPICH)
  return MpiBugs::kMpich40;
#else
  return MpiBugs::kUntested;
#endif
}

// One handle's vote, from the call that starts it to the one it is due
// at. Under MPICH the allreduce is made at the due call instead
// (pending_steps.h, kCollectivesAhead).
struct HandoffVote final : PendingStep {
  MPI_Comm graph_comm = MPI_COMM_NULL;
  int kinds = 0;  // this rank's, then every rank's
  int started = MPI_SUCCESS;
  MPI_Request reduce = MPI_REQUEST_NULL;

  void settle() override {
    if (reduce != MPI_REQUEST_NULL) PMPI_Wait(&reduce, MPI_STATUS_IGNORE);
  }
  HandoffVote() = default;
  // Freed with the handle: settled unless the MPI is gone.
  ~HandoffVote() override { settle_while_mpi_lives(); }
};

namespace {

// This rank's ballot: none under NBRCOLL_GRAPH_HANDOFF=0, nor from a
// process with a GPU runtime (its nonblocking calls go to the MPI anyway,
// and its blocking ones are nbrcoll's, which a host rank's hand-off would
// not meet).
int ballot(const GraphInfo& info) {
  if (!config().graph_handoff || device_process()) return 0;
  return static_cast<int>(kinds_the_mpi_runs(built_mpi_bugs(), info.in, info.out, MPI_PROC_NULL));
}

void start_vote(CommState& state, MPI_Comm graph_comm) {
  auto vote = std::make_shared<HandoffVote>();
  vote->graph_comm = graph_comm;
  vote->kinds = ballot(*state.info);
  if (kCollectivesAhead) {
    vote->started = PMPI_Iallreduce(MPI_IN_PLACE, &vote->kinds, 1, MPI_INT, MPI_BAND, graph_comm, &vote->reduce);
    track_pending_step(vote);
  }
  state.vote = std::move(vote);
}

void count_vote(CommState& state) {
  const std::shared_ptr<HandoffVote> vote = std::move(state.vote);
  int rc = vote->started;
  if (rc == MPI_SUCCESS)
    rc = kCollectivesAhead ? PMPI_Wait(&vote->reduce, MPI_STATUS_IGNORE)
                           : PMPI_Allreduce(MPI_IN_PLACE, &vote->kinds, 1, MPI_INT, MPI_BAND, vote->graph_comm);
  // A failed allreduce fails on every rank alike in practice; none hands off.
  state.mpi_kinds = rc == MPI_SUCCESS ? static_cast<unsigned>(vote->kinds) : 0U;
  log(LogLevel::kTrace, "graph's hand-off vote at its call %llu: the MPI's own collective runs kinds 0x%x",
      static_cast<unsigned long long>(kVoteDue), state.mpi_kinds);
}

}  // namespace

void vote_if_due(CommState& state, MPI_Comm graph_comm) {
  const std::uint64_t n = ++state.handle_calls;
  if (n != kVoteStart && n != kVoteDue) return;
  if (n == kVoteStart) {
    // Cartesian grids know without a vote (GraphInfo::mpi_runs_linear), and
    // old-style graphs are not handed off (untested); every rank of the
    // communicator sees the same kind of topology.
    int topo = MPI_UNDEFINED;
    if (config().disable || PMPI_Topo_test(graph_comm, &topo) != MPI_SUCCESS || topo != MPI_DIST_GRAPH) return;
    start_vote(state, graph_comm);
  } else if (state.vote) {
    count_vote(state);
  }
}

}  // namespace nbrcoll
