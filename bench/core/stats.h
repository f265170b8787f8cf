// Order statistics of a sample of timings.
#pragma once

#include <vector>

namespace nbrbench {

struct Summary {
  double median = 0.0;  // mean of the two middle values for an even count
  double min = 0.0;
  double max = 0.0;
};

// Empty input gives all zeros.
Summary summarize(std::vector<double> samples);

}  // namespace nbrbench
