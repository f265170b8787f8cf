#include "mixed_plan.h"

#include <algorithm>
#include <stdexcept>

namespace nbrcoll::algos {

namespace {

int mixed_tag(int tag, Variant v) {
  return 2 * tag + static_cast<int>(v);
}

}  // namespace

MixedPlan mix_plans(const Plan& linear, const Plan& leader, const std::vector<int>& in) {
  if (linear.rank != leader.rank) throw std::invalid_argument("mix_plans: plans of different ranks");
  MixedPlan m;
  m.plan.rank = linear.rank;
  const int me = linear.rank;
  const auto origin_of_copy = [&](const LocalCopy& c) {
    return c.from_slot < 0 ? me : in.at(static_cast<std::size_t>(c.from_slot));
  };
  for (const Plan* p : {&linear, &leader}) {
    for (const Recv& r : p->recvs) m.origins.push_back(r.origin);
    for (const Send& s : p->sends) m.origins.push_back(s.origin);
    for (const LocalCopy& c : p->copies) m.origins.push_back(origin_of_copy(c));
  }
  std::sort(m.origins.begin(), m.origins.end());
  m.origins.erase(std::unique(m.origins.begin(), m.origins.end()), m.origins.end());
  for (const int o : m.origins) {
    int slot = -1;
    if (o != me) {
      const auto it = std::find(in.begin(), in.end(), o);
      if (it == in.end()) throw std::logic_error("mix_plans: origin not in the in-list");
      slot = static_cast<int>(it - in.begin());
    }
    m.home_slot.push_back(slot);
  }
  const auto index_of = [&](int origin) {
    return static_cast<int>(std::lower_bound(m.origins.begin(), m.origins.end(), origin) - m.origins.begin());
  };
  const Variant variants[] = {Variant::kLinear, Variant::kLeader};
  for (int k = 0; k < 2; ++k) {
    const Plan& p = k == 0 ? linear : leader;
    const Variant v = variants[k];
    const int recv_base = static_cast<int>(m.plan.recvs.size());
    for (Recv r : p.recvs) {
      r.tag = mixed_tag(r.tag, v);
      m.recv_variant.push_back(v);
      m.recv_origin.push_back(index_of(r.origin));
      m.plan.recvs.push_back(r);
    }
    for (Send s : p.sends) {
      s.tag = mixed_tag(s.tag, v);
      if (s.after_recv >= 0) s.after_recv += recv_base;
      m.send_variant.push_back(v);
      m.send_origin.push_back(index_of(s.origin));
      m.plan.sends.push_back(s);
    }
    for (const LocalCopy& c : p.copies) {
      m.copy_variant.push_back(v);
      m.copy_origin.push_back(index_of(origin_of_copy(c)));
      m.plan.copies.push_back(c);
    }
  }
  return m;
}

Plan select(const MixedPlan& mixed, const std::vector<Variant>& choice) {
  Plan out;
  out.rank = mixed.plan.rank;
  std::vector<int> new_index(mixed.plan.recvs.size(), -1);
  for (std::size_t i = 0; i < mixed.plan.recvs.size(); ++i) {
    if (!chosen(mixed.recv_variant[i], mixed.recv_origin[i], choice)) continue;
    new_index[i] = static_cast<int>(out.recvs.size());
    out.recvs.push_back(mixed.plan.recvs[i]);
  }
  for (std::size_t i = 0; i < mixed.plan.sends.size(); ++i) {
    if (!chosen(mixed.send_variant[i], mixed.send_origin[i], choice)) continue;
    Send s = mixed.plan.sends[i];
    // A forward belongs to the same origin and variant as the receive it waits for.
    if (s.after_recv >= 0) s.after_recv = new_index[static_cast<std::size_t>(s.after_recv)];
    out.sends.push_back(s);
  }
  for (std::size_t i = 0; i < mixed.plan.copies.size(); ++i) {
    if (chosen(mixed.copy_variant[i], mixed.copy_origin[i], choice)) out.copies.push_back(mixed.plan.copies[i]);
  }
  return out;
}

int largest_tag(const MixedPlan& mixed) {
  int largest = 0;
  for (const Recv& r : mixed.plan.recvs) largest = std::max(largest, r.tag);
  for (const Send& s : mixed.plan.sends) largest = std::max(largest, s.tag);
  return largest;
}

}  // namespace nbrcoll::algos
