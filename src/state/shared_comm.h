// nbrcoll's process-wide communicator: one copy of MPI_COMM_WORLD
// (quiet_copy), made in MPI_Init, that carries the messages of every graph
// whose processes are all in MPI_COMM_WORLD. Graph creation then makes no communicator of its
// own, which cost 0.6-1 ms of every creation (bench/RESULTS.md at 71e5103).
// Ranks there are world ranks (GraphInfo::process_of); each graph handle owns
// a block of tags (tag_blocks.h), so no two graphs alive together share a tag.
//
// A graph's serial, which names its blocks, is the maximum over its ranks of
// each rank's proposal, taken in the agreement allreduce graph creation makes
// (below agreed_serials()); a graph set up without agreement (every world
// process in it, linear plans only: graph_setup.cpp) draws the next serial
// of its creation line instead (creation_line.h: the upper half, or under
// MPI_THREAD_MULTIPLE serials an agreement reserved), the same on every
// rank. Each rank proposes one more than the largest
// serial it has agreed on, so two graphs with a rank in common get different serials, provided that rank did not create
// them at the same time (threads): a creation that starts while another is in progress on its rank is flagged in the
// agreement and makes a communicator of its own instead, as does a graph
// once serials run out (graph_serials) or a graph with processes outside
// MPI_COMM_WORLD.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

// The MPI_Init wrappers call this once MPI is initialised (every world rank
// does). Makes nothing under NBRCOLL_DISABLE=1 or NBRCOLL_SHARED_COMM=0, and
// nothing when the duplicate fails (graphs then make their own).
void open_shared_comm();

// The communicator, or MPI_COMM_NULL where it was not made.
MPI_Comm shared_comm();

// A communicator of comm's group in comm's rank order, made by every rank
// of comm, that leaves comm's nonblocking-collective state alone: by
// MPI_Comm_create_group, which Open MPI 4.1 runs by point-to-point messages
// on comm under the given tag, where MPI_Comm_dup or MPI_Comm_create run its
// nonblocking allreduce on comm. Called only where the application can have
// nothing in flight on comm: in MPI_Init (MPI_COMM_WORLD) and inside the
// creation call that made comm (a graph's private channel). Open
// MPI 4.1 numbers a communicator's nonblocking collectives with tags that
// count down from -27 and exchanges MPI_Dist_graph_create's edges (topo
// treematch, its default) on the parent under the fixed tags -50 and -51: a
// creation whose own cid allreduce reaches those tags can hang
// (docs/KNOWN-ISSUES.md). A duplicate of MPI_COMM_WORLD there would move
// that point to another creation, so a program that does not hang without
// nbrcoll could hang with it. Also copies no attributes, info or topology.
int quiet_copy(MPI_Comm comm, MPI_Comm* made);

// MPI_TAG_UB of this process, asked once.
long long tag_upper_bound();

// Agreed serials (SerialClaim) lie below this bound; the serials from it up
// to graph_serials(MPI_TAG_UB) are drawn without agreement
// (creation_line.h).
std::int64_t agreed_serials();

// One graph creation's claim on a serial, open from the proposal until the
// agreed serial is known (settle) or the creation ends.
class SerialClaim {
 public:
  SerialClaim();
  SerialClaim(const SerialClaim&) = delete;
  SerialClaim& operator=(const SerialClaim&) = delete;
  ~SerialClaim();
  // This rank's proposal: above every serial it agreed on before.
  [[nodiscard]] std::int64_t proposal() const { return proposal_; }
  // No other creation was in progress on this rank when this one began.
  [[nodiscard]] bool alone() const { return alone_; }
  // The last serial the graph's ranks took: the one they agreed on (the
  // maximum of their proposals), or the last of those the agreement
  // reserved after it for a creation line (creation_line.h). Later
  // proposals of this rank lie above it.
  void settle(std::int64_t last);

 private:
  std::int64_t proposal_ = 0;
  bool alone_ = false;
  bool open_ = true;
};

}  // namespace nbrcoll
