// Graphs across nodes that plan late: set up like a one-node graph (linear
// plans only, no node lists, no planners, no agreement: the MPI's own
// creation plus bookkeeping), they plan at a later blocking call, and only
// if they make one.
//
// Under auto mostly blocking calls take a plan other than linear
// (nonblocking and persistent calls run linear, but where a thread or the
// MPI's progress loop forwards for them: call/decide.cpp), so a
// graph that makes few such calls would never repay node lists,
// planners, cost rows and an allreduce. Mesh and function-space set-up
// make dozens of such graphs (DOLFINx: about two calls each). So a graph
// across nodes of every world process (one that may go without agreement:
// graph_setup.cpp), auto, on the host, runs its first
// linear_calls_before_plans() calls that count linear (blocking ones, and
// nonblocking ones that may forward: NBRCOLL_SHORT_GRAPHS, 8: docs/DESIGN.md
// says why), and each handle's next such call takes the plans, made by what creation skipped: the node
// lists and the agreement's reduction, over the handle's channel, and the
// plans, spread over the calls before it, from its
// third (plan_if_due). Every rank of the graph makes those calls as its
// same calls on the handle (MPI orders the collectives on a communicator),
// so every rank takes each step there, before the call's own arguments are
// looked at; the number of calls comes from a setting every process agreed
// on at MPI_Init. The handle then holds a new GraphInfo; its duplicates
// made before keep theirs and plan at their own calls.
#pragma once

#include <mpi.h>

#include "state/agreed_settings.h"  // linear_calls_before_plans
#include "state/comm_state.h"

namespace nbrcoll {

// Every blocking call on a handle, first, and with a progress thread in
// every process (agreed_settings.h) every nonblocking call and persistent
// init too, since those may then forward: counts it, and where it is the
// one its graph plans at, plans (collective over the graph) and gives the
// handle the planned graph, a scratch and a pool of its own (the old ones
// remember calls and kept messages of the linear plans). Where planning
// fails on any rank, every rank keeps the linear graph (one warning line).
// The planning spreads over the handle's calls up to that one
// (late_plans.cpp: LatePlanning), so that none but that one waits for
// peers: node lists posted six calls before; from five calls before on,
// each call looks whether the peers' have arrived and, once they have,
// plans and starts the agreement's reduction on the handle's channel
// (state/channel_max.h), or looks at its next round; the call itself
// completes it, looking at the process's other plannings meanwhile.
void plan_if_due(CommState& state);

// A look, without waiting, at every planning of the process that has
// reached the calls that look (node lists arrived? the agreement's next
// round), from the MPI's progress loop (call/mpi_progress_hook.h): a rank
// blocked in another MPI call still does its part of a planning its peers
// wait for in their planning call. Nothing where no planning is alive or
// this thread steps one.
void look_at_late_planning();

// A handle freed before the call it plans at: its planning completed by
// the thread that frees it (every rank of the graph frees it too), never
// by a look from the MPI's progress loop that may hold it last.
void settle_late_planning(CommState& state);

// At MPI_Finalize, before the MPI's: completes the node lists and
// agreements still in flight of handles never freed that stopped short of
// the call they plan at (every rank of such a graph does the same).
void finish_late_planning();

// At the end of every blocking call on a handle: one look at its planning
// in flight, if any (the peers' node lists, or the agreement's reduction:
// state/channel_max.h), after the call's own messages, whose waits have
// progressed it.
void advance_late_planning(CommState& state);

}  // namespace nbrcoll
