// Settings every process must read alike, agreed once at MPI_Init by one
// allreduce over the process-wide communicator (every world process is in
// MPI_Init anyway): a choice made from them is the same on every rank
// without any talking later.
#pragma once

namespace nbrcoll {

// What moves a forwarding plan's later steps (a leader's second hop, a
// bundle) between a nonblocking call's start and its completion, from the
// least to the most: the application's calls that nbrcoll intercepts; also
// every MPI call through the MPI's progress loop (NBRCOLL_PROGRESS=mpi,
// call/mpi_progress_hook.h), so a rank blocked in another MPI call
// forwards; also a thread of nbrcoll's (call/progress_thread.h), so a rank
// computing outside MPI forwards.
enum class ForwardingProgress : int { kCalls = 0, kMpiLoop = 1, kThread = 2 };

// At MPI_Init, after the shared communicator opened (shared_comm.h):
// the least NBRCOLL_SHORT_GRAPHS of all processes, the least forwarding
// progress (`progress_here`: this process's) and the leaders a remote block
// splits over (from each process's machine model, loaded here). Without a
// shared communicator nothing is agreed: graphs plan at creation and
// progress counts as kCalls.
void agree_settings(ForwardingProgress progress_here);

// The blocking calls a graph across nodes runs linear before it plans
// (late_plans.h); 0: graphs plan at creation (NBRCOLL_SHORT_GRAPHS=0 in
// some process, or no shared communicator).
int linear_calls_before_plans();

// The least forwarding progress of every process: from kMpiLoop up a rank
// blocked in another MPI call forwards, so auto may forward in nonblocking
// and persistent calls (call/decide.cpp: which blocks, by the progress).
ForwardingProgress forwarding_progress_everywhere();

// The most leaders the leader plan splits a block over on another node
// (algos::PlanInput::remote_leaders): the least algos::remote_leaders_for
// of every process's machine model; 0 (one per package group) where
// nothing was agreed.
int remote_leaders();

}  // namespace nbrcoll
