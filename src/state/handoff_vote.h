// Which calls of a distributed graph the MPI's own collective may run.
//
// Under auto a call that goes linear by a rule every rank shares
// (nonblocking without progress threads, or one node) is handed to the
// MPI's own collective where the MPI gets the graph right
// (call/decide.cpp): the MPI posts the same messages, and in applications
// its own calls measured faster than nbrcoll's linear ones with several
// ranks to a core (PETSc's scatter; bench/RESULTS.md). On a Cartesian grid
// every rank knows alike whether the MPI gets it right
// (GraphInfo::mpi_runs_linear). On a distributed graph each rank knows only
// its own lists, and every rank must hand off alike, or nbrcoll's messages
// would meet none. So the ranks vote: a handle's kVoteStart-th call (of
// any kind and mode: MPI orders a communicator's collectives alike on
// every rank) starts a bitwise-and allreduce over the graph of the kinds
// each rank's lists allow (kinds_the_mpi_runs), and its kVoteDue-th call
// completes it; from that call on, the handle's calls of the voted kinds
// that go linear by rule are the MPI's. A graph called fewer than
// kVoteStart times pays nothing; one called fewer than kVoteDue times
// completes the vote when freed or at MPI_Finalize (pending_steps.h).
// Duplicates vote at their own calls.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "call/user_call.h"

namespace nbrcoll {

struct CommState;

inline constexpr std::uint64_t kVoteStart = 3;
inline constexpr std::uint64_t kVoteDue = 9;

// The kinds (bit 1 << Kind) whose MPI's own collective this rank's lists
// allow, by the MPI's bugs that the lists could meet (README, known
// issues): never alltoallw (Open MPI 4.1.4's nonblocking alltoallw
// crashed on a graph with self and duplicate edges, tests/fortran; MPICH
// 4.0.2's is wrong on such graphs and its nonblocking form fails on a
// chain); under Open MPI no kind where a list names MPI_PROC_NULL (its
// collectives crash) or where the rank has in-neighbours and no
// out-neighbours (they hang); under MPICH alltoall only without a
// neighbour named twice (its slots are filled in reverse). Under another
// MPI none: untested. Pure.
enum class MpiBugs : std::uint8_t { kOpenMpi41, kMpich40, kUntested };
unsigned kinds_the_mpi_runs(MpiBugs mpi, const std::vector<int>& in, const std::vector<int>& out, int proc_null);

// Those of the MPI libnbrcoll was built for.
MpiBugs built_mpi_bugs();

inline bool kind_in(unsigned kinds, Kind k) { return (kinds >> static_cast<unsigned>(k) & 1U) != 0; }

// Every call on a handle of a distributed graph, first: counts it, and at
// kVoteStart starts the vote, at kVoteDue completes it into
// CommState::mpi_kinds (collective over `graph_comm`).
void vote_if_due(CommState& state, MPI_Comm graph_comm);

}  // namespace nbrcoll
