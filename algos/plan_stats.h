// What one rank's plan moves, per link class, for given block sizes: messages
// and bytes it sends (fragments that turn out empty are not counted; a bundle
// counts its messages, header and pieces) and the local copies. Sums over ranks with +=. Used by the
// simulator, the benchmarks and the debug log.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "algos/plan.h"

namespace nbrcoll::algos {

struct LinkTally {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;
};

struct PlanStats {
  std::array<LinkTally, kLinkClassCount> sent{};  // indexed by LinkClass
  std::uint64_t copies = 0;
  std::uint64_t copy_bytes = 0;

  [[nodiscard]] const LinkTally& at(LinkClass c) const { return sent[static_cast<std::size_t>(c)]; }
  [[nodiscard]] std::uint64_t messages() const;
  [[nodiscard]] std::uint64_t bytes() const;
  PlanStats& operator+=(const PlanStats& other);
};

// block_of(origin) = B(origin) in bytes (allgatherv: per origin). `in` (the
// rank's in-list) names the origin of duplicate-slot copies; without it their
// bytes are not counted (copies from the send buffer always are).
PlanStats compute_stats(const Plan& plan, const std::function<std::uint64_t(int origin)>& block_of,
                        const std::vector<int>* in = nullptr);
// Every block `block_bytes` long (allgather).
PlanStats compute_stats(const Plan& plan, std::uint64_t block_bytes);

// One line, e.g. "network 3 msg/1536 B, xgmi-linked 2 msg/1024 B, copies 1/512 B".
std::string format_stats(const PlanStats& stats);

}  // namespace nbrcoll::algos
