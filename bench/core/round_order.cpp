#include "bench/core/round_order.h"

#include <utility>

#include "bench/core/rng.h"

namespace nbrbench {

void round_order(std::uint64_t round, std::vector<std::size_t>& order) {
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  SplitMix64 rng(round);  // Fisher-Yates with the portable generator: every rank agrees
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.next() % i]);
}

}  // namespace nbrbench
