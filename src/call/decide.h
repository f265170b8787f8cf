// One place decides what a call does (decide()): hand it to the MPI, with
// the reason, or run it, with the variant of every block, bundles on or
// off, the host fast path or the schedule engine, and the host or device
// transport. Every rank reaches the same choice for every block without
// talking: each block's variant comes from its size, which both of its ends
// know, and the cost table graph creation made identical on every rank
// (state/cost_tables.h); whether bundles travel depends only on the
// setting, the call's mode and that table, never on sizes. A fragment's
// route on the device transport is its sender's alone to choose (where its
// bytes lie; transport/device/route.h), announced by the message itself.
#pragma once

#include <mpi.h>

#include "call/decision.h"
#include "call/scratch.h"
#include "call/user_call.h"
#include "state/comm_state.h"

namespace nbrcoll {

// What `c` (in `mode`, on a communicator whose nbrcoll state is `state`,
// null where there is none) will do on this rank. Fills the scratch: the
// arguments, the block sizes (layout.measure), the variant of every unit
// and bundles (choice), and in a process with a GPU runtime the device
// routing. At NBRCOLL_DEBUG=trace prints the decision, one line.
Decision decide(const UserCall& c, Mode mode, CommState* state, CallScratch& s);

// Whether auto may give a nonblocking or persistent call (an alltoall or an
// allgather) on the graph `info` a plan that forwards: every process's forwarding progress
// (state/agreed_settings.h) lets a rank blocked in another MPI call
// forward; a progress thread everywhere for every kind, the MPI's progress
// loop for allgathers (where only large blocks forward, never in bundles:
// algos::nonblocking_variant; alltoalls have no leader plan) off the
// Cartesian grids whose linear calls go to the MPI (GraphInfo::
// mpi_runs_linear). The same on every rank.
bool nonblocking_may_forward(bool alltoall, const GraphInfo& info);

// Why a call on a communicator nbrcoll holds no state for goes to the MPI
// (what decide() says for it): NBRCOLL_DISABLE, or not set up.
Handoff handoff_without_state();

}  // namespace nbrcoll
