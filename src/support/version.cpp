#include "support/version.h"

#include <string_view>

#include "nbrcoll/nbrcoll.h"

namespace nbrcoll {

static_assert(std::string_view(NBRCOLL_VERSION_STRING) == NBRCOLL_PROJECT_VERSION,
              "include/nbrcoll/nbrcoll.h and CMakeLists.txt disagree on the version");

const BuildInfo& build_info() {
  static const BuildInfo info{NBRCOLL_VERSION_STRING,      NBRCOLL_BUILD_MPI,      NBRCOLL_BUILD_HWLOC != 0,
                              NBRCOLL_BUILD_ROCM_SMI != 0, NBRCOLL_BUILD_HIP != 0, NBRCOLL_BUILD_CUDA != 0};
  return info;
}

}  // namespace nbrcoll

extern "C" const char* nbrcoll_version(void) {
  return NBRCOLL_VERSION_STRING;
}
