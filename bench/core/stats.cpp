#include "stats.h"

#include <algorithm>

namespace nbrbench {

Summary summarize(std::vector<double> s) {
  if (s.empty()) return {};
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  const double median = n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return {median, s.front(), s.back()};
}

}  // namespace nbrbench
