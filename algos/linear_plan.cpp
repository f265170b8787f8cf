// The linear plan: one message per edge, what Open MPI and MPICH do. Self
// edges become local copies (MPI would send to itself). A receive slot's tag
// is its occurrence number among the in-list's entries of its source; a
// send's is the occurrence it fills at the receiver (receiver_occurrences:
// with kListOrder the k-th occurrence of the receiver in the out-list, MPI's
// rule for graphs; on Cartesian communicators the two blocks of a dimension
// whose neighbours are one rank cross). The receive side is the same for
// allgather and alltoall; an alltoall send carries the block of its own
// out-edge.
#include "algos/linear_plan.h"

#include "algos/link_class.h"

namespace nbrcoll::algos {

Plan linear_plan_of(const PlanInput& input, bool alltoall, const std::function<bool(int source, int dest)>& keep) {
  Plan plan;
  plan.rank = input.rank;
  const std::vector<int> k_at_receiver = receiver_occurrences(input.out, input.pairing);
  // Alltoall self edges: the k-th self occurrence in the in-list takes the
  // block of the self out-edge that fills it.
  std::vector<int> self_out_edges;  // by k
  for (int j = 0; j < static_cast<int>(input.out.size()); ++j) {
    if (input.out[static_cast<std::size_t>(j)] != input.rank) continue;
    const auto k = static_cast<std::size_t>(k_at_receiver[static_cast<std::size_t>(j)]);
    if (self_out_edges.size() <= k) self_out_edges.resize(k + 1, -1);
    self_out_edges[k] = j;
  }
  std::size_t self_seen = 0;
  // A slot's tag: its occurrence among the slots of its source (`keep`
  // takes or drops every slot of one source alike).
  const std::vector<int> k_in_list = occurrence_numbers(input.in);
  for (int slot = 0; slot < static_cast<int>(input.in.size()); ++slot) {
    const int source = input.in[static_cast<std::size_t>(slot)];
    if (source == kNoRank) continue;
    if (source != input.rank && !keep(source, input.rank)) continue;
    if (source == input.rank) {
      LocalCopy c{-1, slot, -1};
      if (alltoall) {
        // A valid graph has as many self edges in both lists; a surplus in
        // the in-list has no block and stays untouched, as with MPI.
        if (self_seen == self_out_edges.size()) continue;
        c.from_out_edge = self_out_edges[self_seen++];
        if (c.from_out_edge < 0) continue;
      }
      plan.copies.push_back(c);
      continue;
    }
    Recv r;
    r.peer = source;
    r.origin = source;
    r.slot = slot;
    r.tag = k_in_list[static_cast<std::size_t>(slot)];
    r.link = classify_link(input.places, input.node, source, input.rank);
    plan.recvs.push_back(r);
  }
  for (int j = 0; j < static_cast<int>(input.out.size()); ++j) {
    const int dest = input.out[static_cast<std::size_t>(j)];
    if (dest == kNoRank || dest == input.rank || !keep(input.rank, dest)) continue;
    Send s;
    s.peer = dest;
    s.origin = input.rank;
    s.tag = k_at_receiver[static_cast<std::size_t>(j)];
    s.out_edge = alltoall ? j : -1;
    s.link = classify_link(input.places, input.node, input.rank, dest);
    plan.sends.push_back(s);
  }
  return plan;
}

namespace {
bool every_edge(int, int) {
  return true;
}
}  // namespace

Plan build_linear_plan(const PlanInput& input) {
  return linear_plan_of(input, false, every_edge);
}

Plan build_linear_alltoall_plan(const PlanInput& input) {
  return linear_plan_of(input, true, every_edge);
}

}  // namespace nbrcoll::algos
