#include "bench/core/stats.h"

#include <algorithm>
#include <utility>

namespace nbrbench {

Summary summarize(std::vector<double> s) {
  if (s.empty()) return {};
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  const double median = n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return {median, s.front(), s.back()};
}

std::optional<double> median_ratio(const std::vector<double>& reference, const std::vector<double>& samples) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < std::min(reference.size(), samples.size()); ++i) {
    if (reference[i] > 0 && samples[i] > 0) ratios.push_back(reference[i] / samples[i]);
  }
  if (ratios.empty()) return std::nullopt;
  return summarize(std::move(ratios)).median;
}

}  // namespace nbrbench
