#include "algos/plan.h"

#include <algorithm>

namespace nbrcoll::algos {
namespace {
__extension__ typedef unsigned __int128 WideProduct;  // GCC/Clang: exact block * w
}  // namespace

std::uint64_t split_point_wide(std::uint64_t block, std::uint32_t w, std::uint32_t total) {
  const auto exact = static_cast<std::uint64_t>(static_cast<WideProduct>(block) * w / total);
  return exact - exact % kSplitAlignment;
}

std::vector<int> occurrence_numbers(const std::vector<int>& list) {
  std::vector<int> k;
  occurrence_numbers(list, k);
  return k;
}

void occurrence_numbers(const std::vector<int>& list, std::vector<int>& k) {
  k.assign(list.size(), 0);
  // Most neighbourhoods are short: counting the equal entries before each
  // one directly beats sorting (position, value) pairs there, and needs no
  // second allocation.
  constexpr std::size_t kShortList = 32;
  if (list.size() <= kShortList) {
    for (std::size_t i = 1; i < list.size(); ++i) {
      int before = 0;
      for (std::size_t j = 0; j < i; ++j) before += list[j] == list[i] ? 1 : 0;
      k[i] = before;
    }
    return;
  }
  std::vector<std::pair<int, int>> order(list.size());  // (value, position): equal values in list order
  for (std::size_t i = 0; i < list.size(); ++i) order[i] = {list[i], static_cast<int>(i)};
  std::sort(order.begin(), order.end());
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (order[i].first == order[i - 1].first)
      k[static_cast<std::size_t>(order[i].second)] = k[static_cast<std::size_t>(order[i - 1].second)] + 1;
  }
}

HomeSlots::HomeSlots(const std::vector<int>& in) {
  first_.reserve(in.size());
  for (int slot = 0; slot < static_cast<int>(in.size()); ++slot) {
    const int origin = in[static_cast<std::size_t>(slot)];
    if (origin != kNoRank) first_.emplace_back(origin, slot);
  }
  std::sort(first_.begin(), first_.end());  // an origin's first slot first
  first_.erase(
      std::unique(first_.begin(), first_.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
      first_.end());
}

int HomeSlots::find(int origin) const {
  const auto it = std::lower_bound(first_.begin(), first_.end(), std::pair(origin, -1));
  return it != first_.end() && it->first == origin ? it->second : -1;
}

std::vector<int> receiver_occurrences(const std::vector<int>& out, EdgePairing pairing) {
  std::vector<int> k;
  receiver_occurrences(out, pairing, k);
  return k;
}

void receiver_occurrences(const std::vector<int>& out, EdgePairing pairing, std::vector<int>& k) {
  occurrence_numbers(out, k);
  if (pairing == EdgePairing::kListOrder) return;
  // Entries 2i and 2i + 1 naming one peer cross: each takes the other's k.
  for (std::size_t j = 0; j + 1 < out.size(); j += 2) {
    if (out[j] != kNoRank && out[j + 1] == out[j]) std::swap(k[j], k[j + 1]);
  }
}

const char* link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::kSameDevice:
      return "same-device";
    case LinkClass::kSamePackage:
      return "same-package";
    case LinkClass::kLinked:
      return "xgmi-linked";
    case LinkClass::kMultiHop:
      return "multi-hop";
    case LinkClass::kNetwork:
      return "network";
  }
  return "?";
}

namespace {

// FNV-1a over 32-bit words, each list prefixed by its length so that the
// same numbers split differently hash differently.
class InputHash {
 public:
  void add(std::int64_t v) {
    for (int shift = 0; shift < 64; shift += 32) {
      state_ ^= static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) >> shift);
      state_ *= 0x100000001b3ULL;
    }
  }
  // One step per int (the input is ints but for the sizes): half the
  // multiplications of add(int64) for the lists and matrices, most of it.
  void add_int(int v) {
    state_ ^= static_cast<std::uint32_t>(v);
    state_ *= 0x100000001b3ULL;
  }
  void add(const std::vector<int>& list) {
    add(static_cast<std::int64_t>(list.size()));
    for (const int x : list) add_int(x);
  }
  void add(const std::vector<std::pair<int, std::vector<int>>>& lists) {
    add(static_cast<std::int64_t>(lists.size()));
    for (const auto& [rank, list] : lists) {
      add(rank);
      add(list);
    }
  }
  [[nodiscard]] std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace

PlanInput node_rank_input(const PlanInput& input, std::size_t i) {
  PlanInput mate = input;
  mate.rank = input.node_in[i].first;
  mate.in = input.node_in[i].second;
  mate.out = input.node_out[i].second;
  return mate;
}

std::uint64_t hash_plan_input(const PlanInput& input) {
  InputHash h;
  h.add(input.rank);
  h.add(static_cast<std::int64_t>(input.pairing));
  h.add(static_cast<std::int64_t>(input.places.size()));
  for (const RankPlace& p : input.places) {
    h.add_int(p.node);
    h.add_int(p.device);
    h.add_int(p.package);
  }
  h.add(input.node.devices);
  h.add(input.node.links);
  h.add(input.node.hops);
  h.add(input.in);
  h.add(input.out);
  h.add(input.node_in);
  h.add(input.node_out);
  h.add(input.remote_leaders);
  return h.value();
}

}  // namespace nbrcoll::algos
