#include "topo/quiet_stderr.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

namespace nbrcoll::topo {

QuietStderr::QuietStderr() {
  std::fflush(stderr);
  saved_ = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (saved_ < 0) return;
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0 || ::dup2(null_fd, 2) < 0) {
    if (null_fd >= 0) ::close(null_fd);
    ::close(saved_);
    saved_ = -1;
    return;
  }
  ::close(null_fd);
}

QuietStderr::~QuietStderr() {
  if (saved_ < 0) return;
  std::fflush(stderr);
  ::dup2(saved_, 2);
  ::close(saved_);
}

}  // namespace nbrcoll::topo
