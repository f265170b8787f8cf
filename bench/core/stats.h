// Order statistics of a sample of timings.
#pragma once

#include <optional>
#include <vector>

namespace nbrbench {

struct Summary {
  double median = 0.0;  // mean of the two middle values for an even count
  double min = 0.0;
  double max = 0.0;
};

// Empty input gives all zeros.
Summary summarize(std::vector<double> samples);

// The median over i of reference[i] / samples[i], over the indices where
// both are positive: a speed-up from pairs measured together (one round of
// an interleaved benchmark), so that what slows a whole round cancels.
// Empty when no pair counts.
std::optional<double> median_ratio(const std::vector<double>& reference, const std::vector<double>& samples);

}  // namespace nbrbench
