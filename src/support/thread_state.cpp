#include "support/thread_state.h"

#include <cstring>
#include <string>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace nbrcoll {

long own_thread_id() {
#if defined(__linux__)
  return static_cast<long>(syscall(SYS_gettid));
#else
  return 0;
#endif
}

ThreadState::ThreadState([[maybe_unused]] long tid) {
#if defined(__linux__)
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
#endif
}

ThreadState::~ThreadState() {
#if defined(__linux__)
  if (fd_ >= 0) close(fd_);
#endif
}

bool ThreadState::runs() const {
#if defined(__linux__)
  if (fd_ < 0) return true;
  char stat[512];
  const ssize_t n = pread(fd_, stat, sizeof stat - 1, 0);
  if (n <= 0) return true;
  stat[n] = '\0';
  const char* name_end = std::strrchr(stat, ')');  // "TID (NAME) STATE ..."
  return name_end == nullptr || name_end[1] == '\0' || name_end[2] == 'R';
#else
  return true;
#endif
}

}  // namespace nbrcoll
