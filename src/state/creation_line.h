// What graph creations draw without talking, in creation order: the serial
// of a graph set up without the agreement (shared_comm.h). Every rank draws
// alike only where every rank makes those creations in the same order:
// - without MPI_THREAD_MULTIPLE every process of MPI_COMM_WORLD makes every
//   creation of a graph of all of them in the same order (creation is
//   collective, and no two threads create at once): one line for the
//   process, holding the upper half of the serials;
// - under MPI_THREAD_MULTIPLE two threads may create graphs from two
//   communicators in different orders on different ranks; only the
//   creations from one communicator are ordered alike (MPI orders the
//   collectives on a communicator). So each parent communicator has a line
//   of its own (an attribute, freed with it). MPI_COMM_WORLD's holds the
//   upper half of the serials from MPI_Init, and a duplicate's line takes
//   its serials from its communicator's line as MPI copies the attribute
//   (line_serials.h: every rank duplicates a communicator in the same
//   order). A line without serials (of a communicator made otherwise, or
//   of a duplicate that found too few) gets them when an agreement on a
//   graph made from it reserves kLineSerials after that graph's own
//   (every rank knows the agreed serial, so every rank reserves the same
//   ones), and again each time they run out.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "state/line_serials.h"

namespace nbrcoll {

// A line is its serials (line_serials.h).
using CreationLine = LineSerials;

// Under MPI_THREAD_MULTIPLE, gives MPI_COMM_WORLD its line with the upper
// half of the serials; the MPI_Init wrappers call it once, after
// open_shared_comm (shared_comm.h). Does nothing without threads, where
// the process's line holds them, or without the shared communicator.
void open_world_line();

// The line of graphs created from `parent` (the process's line without
// MPI_THREAD_MULTIPLE); nullptr where the parent's attribute cannot be made.
CreationLine* creation_line(MPI_Comm parent);

// The line's next serial (`peek`: left to draw); -1 when none is left.
std::int64_t draw_serial(CreationLine& line, bool peek);
// Whether an agreement on a graph from this line should reserve serials
// for it: a parent's line (under MPI_THREAD_MULTIPLE) whose serials are
// used up.
bool wants_serials(const CreationLine* line);
// The reserved serials [first, first + kLineSerials).
void reserve_serials(CreationLine& line, std::int64_t first);

}  // namespace nbrcoll
