#include "algos/schedule.h"

#include <algorithm>

namespace nbrcoll::algos {

Dependencies plan_dependencies(const Plan& plan) {
  Dependencies d;
  d.forwards.resize(plan.recvs.size());
  d.own_sends.reserve(plan.sends.size());
  for (std::size_t i = 0; i < plan.sends.size(); ++i) {
    const int after = plan.sends[i].after_recv;
    if (after >= 0)
      d.forwards[static_cast<std::size_t>(after)].push_back(static_cast<int>(i));
    else
      d.own_sends.push_back(static_cast<int>(i));
  }
  d.bundle_forwards.resize(plan.bundle_recvs.size());
  d.bundle_waits.reserve(plan.bundle_sends.size());
  std::vector<int> from;
  for (std::size_t i = 0; i < plan.bundle_sends.size(); ++i) {
    from.clear();
    for (const PieceSource& f : plan.bundle_sends[i].from) {
      if (f.bundle >= 0) from.push_back(f.bundle);
    }
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    for (const int b : from) d.bundle_forwards[static_cast<std::size_t>(b)].push_back(static_cast<int>(i));
    d.bundle_waits.push_back(static_cast<int>(from.size()));
  }
  return d;
}

Schedule compile_schedule(MixedPlan mixed, const std::vector<int>& node_of) {
  Schedule s;
  const Plan& plan = mixed.plan;
  s.deps = plan_dependencies(plan);
  const int comm_size = static_cast<int>(node_of.size());
  const int my_node = node_of[static_cast<std::size_t>(plan.rank)];
  const auto on_node = [&](int peer) { return node_of[static_cast<std::size_t>(peer)] == my_node; };
  s.recv_on_node.reserve(plan.recvs.size());
  s.send_on_node.reserve(plan.sends.size());
  for (const Recv& r : plan.recvs) s.recv_on_node.push_back(on_node(r.peer));
  for (const Send& x : plan.sends) s.send_on_node.push_back(on_node(x.peer));
  const auto distance = [&](int i) {
    return (plan.sends[static_cast<std::size_t>(i)].peer - plan.rank + comm_size) % comm_size;
  };
  std::stable_sort(s.deps.own_sends.begin(), s.deps.own_sends.end(),
                   [&](int a, int b) { return distance(a) < distance(b); });
  const auto index = [](Variant v) { return static_cast<std::size_t>(v); };
  for (std::size_t i = 0; i < plan.recvs.size(); ++i)
    s.recvs_of[index(mixed.recv_variant[i])].push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < plan.sends.size(); ++i)
    s.sends_of[index(mixed.send_variant[i])].push_back(static_cast<int>(i));
  for (const int i : s.deps.own_sends)
    s.own_sends_of[index(mixed.send_variant[static_cast<std::size_t>(i)])].push_back(i);
  s.mixed = std::move(mixed);
  return s;
}

}  // namespace nbrcoll::algos
