// The linear plan: one message per edge, what Open MPI and MPICH do. Self
// edges become local copies (MPI would send to itself). The k-th occurrence of
// a source in the in-list pairs with the k-th occurrence of this rank in that
// source's out-list (MPI's rule); the occurrence number is the tag.
#include <unordered_map>

#include "link_class.h"
#include "plan.h"

namespace nbrcoll::algos {

Plan build_linear_plan(const PlanInput& input) {
  Plan plan;
  plan.rank = input.rank;
  std::unordered_map<int, int> seen;
  for (int slot = 0; slot < static_cast<int>(input.in.size()); ++slot) {
    const int source = input.in[static_cast<std::size_t>(slot)];
    if (source == kNoRank) continue;
    if (source == input.rank) {
      plan.copies.push_back({-1, slot});
      continue;
    }
    Recv r;
    r.peer = source;
    r.origin = source;
    r.slot = slot;
    r.tag = seen[source]++;
    r.link = classify_link(input.places, input.node, source, input.rank);
    plan.recvs.push_back(r);
  }
  seen.clear();
  for (const int dest : input.out) {
    if (dest == kNoRank || dest == input.rank) continue;
    Send s;
    s.peer = dest;
    s.origin = input.rank;
    s.tag = seen[dest]++;
    s.link = classify_link(input.places, input.node, input.rank, dest);
    plan.sends.push_back(s);
  }
  return plan;
}

}  // namespace nbrcoll::algos
