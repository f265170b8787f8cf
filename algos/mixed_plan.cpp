#include "algos/mixed_plan.h"

#include <algorithm>
#include <stdexcept>

namespace nbrcoll::algos {

namespace {

int mixed_tag(int tag, Variant v) {
  return kVariantCount * tag + static_cast<int>(v);
}

const std::vector<int>& no_slots() {
  static const std::vector<int> none;
  return none;
}

// The units of one rank and the unit of each kind of endpoint, numbered in
// the order they are first met.
class Units {
 public:
  Units(const std::vector<int>& in, std::size_t out_edges, bool alltoall, int me)
      : in_(in),
        out_edges_(out_edges),
        alltoall_(alltoall),
        me_(me),
        of_send_block_(std::max<std::size_t>(out_edges, 1), -1),
        of_slot_(in.size(), -1),
        home_(alltoall ? no_slots() : in) {}

  // Allgather: the origin's unit; its home slot is its first in-list slot.
  int of_origin(int origin) {
    if (origin == me_) return add(of_send_block_[0], {0, -1});
    const int home = home_.find(origin);
    if (home < 0) throw std::logic_error("mix_plans: origin not in the in-list");
    return of_slot(home);
  }
  int of_out_edge(int j) {
    if (j < 0 || static_cast<std::size_t>(j) >= out_edges_) throw std::logic_error("mix_plans: bad out-edge");
    return add(of_send_block_[static_cast<std::size_t>(j)], {j, -1});
  }
  int of_slot(int slot) { return add(of_slot_.at(static_cast<std::size_t>(slot)), {-1, slot}); }

  int of_recv(const Recv& r) { return alltoall_ ? of_slot(r.slot) : of_origin(r.origin); }
  int of_send(const Send& s) { return alltoall_ ? of_out_edge(s.out_edge) : of_origin(s.origin); }
  int of_copy(const LocalCopy& c) {
    if (alltoall_) return of_out_edge(c.from_out_edge);  // a self edge: its send side decides
    return of_origin(c.from_slot < 0 ? me_ : in_.at(static_cast<std::size_t>(c.from_slot)));
  }
  int of_own_piece(const PieceSource& f) { return alltoall_ ? of_out_edge(f.out_edge) : of_origin(me_); }
  int of_slot_piece(const BlockId& b, int slot) { return alltoall_ ? of_slot(slot) : of_origin(b.origin); }

  std::vector<Unit> take() { return std::move(units_); }

 private:
  // `index`: the unit's entry in of_send_block_ or of_slot_ (-1: not yet met).
  int add(int& index, Unit u) {
    if (index < 0) {
      index = static_cast<int>(units_.size());
      units_.push_back(u);
    }
    return index;
  }

  const std::vector<int>& in_;
  std::size_t out_edges_;
  bool alltoall_;
  int me_;
  std::vector<Unit> units_;
  std::vector<int> of_send_block_;  // unit per send block (allgather: the one block, 0)
  std::vector<int> of_slot_;        // unit per receive slot
  HomeSlots home_;                  // allgather: each origin's home slot
};

}  // namespace

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::kLinear:
      return "linear";
    case Variant::kLeader:
      return "leader";
    case Variant::kAggregated:
      return "aggregated";
  }
  return "?";
}

MixedPlan mix_plans(const std::vector<std::pair<Variant, const Plan*>>& plans, const std::vector<int>& in,
                    std::size_t out_edges, bool alltoall) {
  if (plans.empty()) throw std::invalid_argument("mix_plans: no plan");
  MixedPlan m;
  m.alltoall = alltoall;
  m.plan.rank = plans.front().second->rank;
  Units units(in, out_edges, alltoall, m.plan.rank);
  std::size_t recvs = 0;
  std::size_t sends = 0;
  std::size_t copies = 0;
  for (const auto& [v, p] : plans) {
    recvs += p->recvs.size();
    sends += p->sends.size();
    copies += p->copies.size();
  }
  m.recv_variant.reserve(recvs);
  m.send_variant.reserve(sends);
  m.copy_variant.reserve(copies);
  m.recv_unit.reserve(recvs);
  m.send_unit.reserve(sends);
  m.copy_unit.reserve(copies);
  m.plan.recvs.reserve(recvs);
  m.plan.sends.reserve(sends);
  m.plan.copies.reserve(copies);
  for (const auto& [v, p] : plans) {
    if (p->rank != m.plan.rank) throw std::invalid_argument("mix_plans: plans of different ranks");
    if (std::find(m.variants.begin(), m.variants.end(), v) != m.variants.end())
      throw std::invalid_argument("mix_plans: a variant twice");
    m.variants.push_back(v);
    const int recv_base = static_cast<int>(m.plan.recvs.size());
    const int bundle_base = static_cast<int>(m.plan.bundle_recvs.size());
    for (Recv r : p->recvs) {
      r.tag = mixed_tag(r.tag, v);
      m.recv_variant.push_back(v);
      m.recv_unit.push_back(units.of_recv(r));
      m.plan.recvs.push_back(r);
    }
    for (Send s : p->sends) {
      s.tag = mixed_tag(s.tag, v);
      if (s.after_recv >= 0) s.after_recv += recv_base;
      m.send_variant.push_back(v);
      m.send_unit.push_back(units.of_send(s));
      m.plan.sends.push_back(s);
    }
    for (const LocalCopy& c : p->copies) {
      m.copy_variant.push_back(v);
      m.copy_unit.push_back(units.of_copy(c));
      m.plan.copies.push_back(c);
    }
    if ((!p->bundle_recvs.empty() || !p->bundle_sends.empty()) && v != Variant::kAggregated)
      throw std::invalid_argument("mix_plans: bundles outside the aggregated variant");
    for (BundleRecv b : p->bundle_recvs) {
      b.tag = mixed_tag(b.tag, v);
      std::vector<int> u;
      for (std::size_t k = 0; k < b.pieces.size(); ++k)
        u.push_back(b.slot[k] >= 0 ? units.of_slot_piece(b.pieces[k], b.slot[k]) : -1);
      m.bundle_recv_unit.push_back(std::move(u));
      m.plan.bundle_recvs.push_back(std::move(b));
    }
    for (BundleSend b : p->bundle_sends) {
      b.tag = mixed_tag(b.tag, v);
      std::vector<int> u;
      for (PieceSource& f : b.from) {
        u.push_back(f.bundle < 0 ? units.of_own_piece(f) : -1);
        if (f.bundle >= 0) f.bundle += bundle_base;
      }
      m.bundle_send_unit.push_back(std::move(u));
      m.plan.bundle_sends.push_back(std::move(b));
    }
  }
  m.units = units.take();
  return m;
}

Plan select(const MixedPlan& mixed, const std::vector<Variant>& choice) {
  Plan out;
  out.rank = mixed.plan.rank;
  std::vector<int> new_index(mixed.plan.recvs.size(), -1);
  for (std::size_t i = 0; i < mixed.plan.recvs.size(); ++i) {
    if (!chosen(mixed.recv_variant[i], mixed.recv_unit[i], choice)) continue;
    new_index[i] = static_cast<int>(out.recvs.size());
    out.recvs.push_back(mixed.plan.recvs[i]);
  }
  for (std::size_t i = 0; i < mixed.plan.sends.size(); ++i) {
    if (!chosen(mixed.send_variant[i], mixed.send_unit[i], choice)) continue;
    Send s = mixed.plan.sends[i];
    // A forward belongs to the same unit and variant as the receive it waits for.
    if (s.after_recv >= 0) s.after_recv = new_index[static_cast<std::size_t>(s.after_recv)];
    out.sends.push_back(s);
  }
  for (std::size_t i = 0; i < mixed.plan.copies.size(); ++i) {
    if (chosen(mixed.copy_variant[i], mixed.copy_unit[i], choice)) out.copies.push_back(mixed.plan.copies[i]);
  }
  out.bundle_recvs = mixed.plan.bundle_recvs;
  for (std::size_t b = 0; b < out.bundle_recvs.size(); ++b) {
    for (std::size_t k = 0; k < out.bundle_recvs[b].slot.size(); ++k) {
      if (!piece_present(mixed.bundle_recv_unit[b][k], choice)) out.bundle_recvs[b].slot[k] = kPieceAbsent;
    }
  }
  out.bundle_sends = mixed.plan.bundle_sends;
  for (std::size_t b = 0; b < out.bundle_sends.size(); ++b) {
    for (std::size_t k = 0; k < out.bundle_sends[b].from.size(); ++k) {
      if (!piece_present(mixed.bundle_send_unit[b][k], choice)) out.bundle_sends[b].from[k].bundle = kPieceAbsent;
    }
  }
  return out;
}

int largest_tag(const MixedPlan& mixed) {
  int largest = 0;
  for (const Recv& r : mixed.plan.recvs) largest = std::max(largest, r.tag);
  for (const Send& s : mixed.plan.sends) largest = std::max(largest, s.tag);
  for (const BundleRecv& b : mixed.plan.bundle_recvs) largest = std::max(largest, b.tag);
  for (const BundleSend& b : mixed.plan.bundle_sends) largest = std::max(largest, b.tag);
  return largest;
}

int largest_tag(const std::vector<std::pair<Variant, const Plan*>>& plans) {
  int largest = 0;
  // mix_plans keeps every message of every plan, its tag made mixed_tag(tag, v).
  for (const auto& [v, p] : plans) {
    const auto widen = [&largest, v = v](int tag) { largest = std::max(largest, mixed_tag(tag, v)); };
    for (const Recv& r : p->recvs) widen(r.tag);
    for (const Send& s : p->sends) widen(s.tag);
    for (const BundleRecv& b : p->bundle_recvs) widen(b.tag);
    for (const BundleSend& b : p->bundle_sends) widen(b.tag);
  }
  return largest;
}

}  // namespace nbrcoll::algos
