// The order the benchmark runs its algorithms in, round by round.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nbrbench {

// A shuffle of 0..order.size()-1 that depends only on `round` (the same on
// every rank, with no communication). On the emulated cluster a call right
// after one that emptied the links' token bucket is slower; in a fixed (or
// rotated) order the same algorithm always paid for it (Moore r=1 at 16K:
// native 1281 us against linear 2266 in a fixed order of five, 2190 against
// 2234 when the two alternated).
void round_order(std::uint64_t round, std::vector<std::size_t>& order);

}  // namespace nbrbench
