// A rank's schedule: a mixed plan (mixed_plan.h) compiled once, at graph
// creation, into what running it needs besides the plan: which sends wait
// for which receive, which bundle sends wait for which bundle receives, the
// rank's own sends in the order they go out, and per variant the fragments
// a call of that variant alone walks. Nothing here depends on a call's
// block sizes or buffers. The engine (src/engine/) runs it, and the
// simulator derives its dependencies with the same function
// (plan_dependencies), so the two run the same schedule.
#pragma once

#include <array>
#include <vector>

#include "algos/mixed_plan.h"
#include "algos/plan.h"

namespace nbrcoll::algos {

// What waits for what in one plan.
struct Dependencies {
  std::vector<std::vector<int>> forwards;  // per receive: the sends that carry it on (after_recv)
  std::vector<int> own_sends;              // the sends that wait for nothing, in plan order
  // Per bundle receive: the bundle sends that carry some of its pieces on;
  // per bundle send: how many distinct bundle receives it waits for.
  std::vector<std::vector<int>> bundle_forwards;
  std::vector<int> bundle_waits;
};
Dependencies plan_dependencies(const Plan& plan);

struct Schedule {
  MixedPlan mixed;
  Dependencies deps;  // of mixed.plan; own_sends staggered (compile_schedule)
  // Per receive and per send: the peer shares this rank's node.
  std::vector<bool> recv_on_node;
  std::vector<bool> send_on_node;
  // Per variant: the receives and sends of its fragments, and its own sends
  // in the order of deps.own_sends. A call whose units all chose one
  // variant walks these instead of testing every fragment.
  std::array<std::vector<int>, kVariantCount> recvs_of;
  std::array<std::vector<int>, kVariantCount> sends_of;
  std::array<std::vector<int>, kVariantCount> own_sends_of;
  // Whether the linear fragments forward anything (they never do: every
  // linear send is an own send), kept so that a caller need not know it.
  [[nodiscard]] bool forwards(Variant v) const {
    const auto i = static_cast<std::size_t>(v);
    return sends_of[i].size() != own_sends_of[i].size();
  }
};

// node_of: rank -> node, for every rank of the communicator. The own sends
// go out in staggered peer order (the next rank first), so that the ranks
// of a node do not all start on one peer.
Schedule compile_schedule(MixedPlan mixed, const std::vector<int>& node_of);

}  // namespace nbrcoll::algos
