// Sends file descriptor 2 to /dev/null for the lifetime of the object.
// Vendor libraries (ROCm SMI's rsmi_init without a driver, hwloc on odd
// VMs) print to stderr on paths we treat as a quiet fallback. While it is
// alive, other threads' stderr output is lost too: keep the scope short.
#pragma once

namespace nbrcoll::topo {

class QuietStderr {
 public:
  QuietStderr();
  ~QuietStderr();
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

}  // namespace nbrcoll::topo
