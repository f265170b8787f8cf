#include "algos/schedule.h"

#include <algorithm>

namespace nbrcoll::algos {

Dependencies plan_dependencies(const Plan& plan) {
  Dependencies d;
  d.forwards.resize(plan.recvs.size());
  d.own_sends.reserve(plan.sends.size());
  for (std::size_t i = 0; i < plan.sends.size(); ++i) {
    const int after = plan.sends[i].after_recv;
    if (after >= 0) {
      d.forwards[static_cast<std::size_t>(after)].push_back(static_cast<int>(i));
    } else {
      d.own_sends.push_back(static_cast<int>(i));
    }
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
  // By distance, equal distances in plan order (own_sends is in plan order:
  // the index breaks ties, as a stable sort would, without its buffer).
  std::sort(s.deps.own_sends.begin(), s.deps.own_sends.end(), [&](int a, int b) {
    const int da = distance(a);
    const int db = distance(b);
    return da != db ? da < db : a < b;
  });
  const auto index = [](Variant v) { return static_cast<std::size_t>(v); };
  std::array<std::size_t, kVariantCount> recvs{};
  std::array<std::size_t, kVariantCount> sends{};
  for (const Variant v : mixed.recv_variant) ++recvs[index(v)];
  for (const Variant v : mixed.send_variant) ++sends[index(v)];
  for (std::size_t v = 0; v < recvs.size(); ++v) {
    s.recvs_of[v].reserve(recvs[v]);
    s.sends_of[v].reserve(sends[v]);
    s.own_sends_of[v].reserve(sends[v]);
  }
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
