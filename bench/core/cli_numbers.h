// Numbers on the command lines of nbrcoll-bench, nbrcoll-model and
// nbrcoll-calibrate.
#pragma once

#include <string>

namespace nbrbench {

// The whole of `v` as an integer in [lo, hi], else std::invalid_argument
// naming `flag`.
long long parse_integer(const std::string& flag, const std::string& v, long long lo, long long hi);
// The whole of `v` as a finite number > 0, else std::invalid_argument.
double parse_positive(const std::string& flag, const std::string& v);

}  // namespace nbrbench
