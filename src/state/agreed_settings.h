// Settings every process must read alike, agreed once at MPI_Init by one
// allreduce over the process-wide communicator (every world process is in
// MPI_Init anyway): a choice made from them is the same on every rank
// without any talking later.
#pragma once

namespace nbrcoll {

// At MPI_Init, after the shared communicator opened (shared_comm.h):
// the least NBRCOLL_SHORT_GRAPHS of all processes, whether every process
// runs a progress thread (`progress_thread_here`: this one does,
// call/progress_thread.h) and the leaders a remote block splits over (from
// each process's machine model, loaded here). Without a shared communicator nothing is
// agreed: graphs plan at creation and no thread counts.
void agree_settings(bool progress_thread_here);

// The blocking calls a graph across nodes runs linear before it plans
// (late_plans.h); 0: graphs plan at creation (NBRCOLL_SHORT_GRAPHS=0 in
// some process, or no shared communicator).
int linear_calls_before_plans();

// Every process runs a progress thread, so a forwarding plan's later steps
// move while ranks compute outside MPI or block in other MPI calls: auto
// may forward in nonblocking and persistent calls (call/decide.cpp).
bool progress_thread_everywhere();

// The most leaders the leader plan splits a block over on another node
// (algos::PlanInput::remote_leaders): the least algos::remote_leaders_for
// of every process's machine model; 0 (one per package group) where
// nothing was agreed.
int remote_leaders();

}  // namespace nbrcoll
