#include "call/progress_thread.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#if defined(__linux__)
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "call/progress.h"
#include "support/config.h"
#include "support/log.h"

namespace nbrcoll {

namespace {

std::mutex g_thread_mutex;
std::condition_variable g_thread_wake;
bool g_thread_stop = false;  // under g_thread_mutex
std::thread g_thread;        // started under g_thread_mutex
std::atomic<bool> g_thread_started{false};

// Whether the application thread that started the progress thread runs or
// waits for a core (state R in /proc/self/task/TID/stat; where that cannot
// be read: yes). While it does (computing, or spinning in an MPI call), the
// thread pauses between polls so as not to take its core; while it sleeps
// or blocks, the thread polls without a pause, yielding the core between
// polls. A forwarding call of a few KiB takes a few 20 us polls, so a pause
// made each hop it forwards wait for the next poll: behind an idle wait the
// forwarding plans hid 37-41% of themselves at 4 KiB with the pause, 90-94%
// without (bench/RESULTS.md, "Overlap with computation"). Not the thread's
// CPU time: a thread polling without a pause on the application's core takes
// its share of that core, and a yield behind a computing thread waits a
// scheduling period (a rank a core: linear 64 KiB calls behind busy work hid
// 52-73% of themselves instead of 95% when the application's CPU time, not
// its state, decided).
class AppState {
 public:
  explicit AppState([[maybe_unused]] long tid) {
#if defined(__linux__)
    const std::string path = "/proc/self/task/" + std::to_string(tid) + "/stat";
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
#endif
  }
  ~AppState() {
#if defined(__linux__)
    if (fd_ >= 0) close(fd_);
#endif
  }
  AppState(const AppState&) = delete;
  AppState& operator=(const AppState&) = delete;
  [[nodiscard]] bool runs() const {
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

 private:
  int fd_ = -1;
};

// The calling thread's id, for AppState.
long own_thread_id() {
#if defined(__linux__)
  return static_cast<long>(syscall(SYS_gettid));
#else
  return 0;
#endif
}

void progress_loop(std::chrono::microseconds interval, long app_thread) {
#if defined(__linux__)
  // Linux wakes a sleeper up to 50 us late by default (timer slack); the
  // interval is the pause asked for.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
  const AppState app(app_thread);
  std::unique_lock<std::mutex> lock(g_thread_mutex);
  while (true) {
    // A call tracked after this test wakes the thread: wake_progress_thread
    // takes g_thread_mutex after the call counts as in flight.
    g_thread_wake.wait(lock, [] { return g_thread_stop || calls_in_flight(); });
    if (g_thread_stop) return;
    lock.unlock();
    // A pause first: a call the application waits for at once is advanced
    // by its wait, and a thread woken at every start would only compete.
    // Then a pause after each poll while the application runs.
    bool pause = true;
    while (calls_in_flight()) {
      if (interval.count() > 0 && pause)
        std::this_thread::sleep_for(interval);
      else
        std::this_thread::yield();
      if (detail::g_threads_waiting.load() == 0) {
        progress_all();
        pause = app.runs();
        continue;
      }
      pause = true;
      // An application thread waits and advances every call itself: parked
      // until it leaves its wait (WaitingInside), no wake-ups meanwhile.
      lock.lock();
      detail::g_parked.store(true);
      g_thread_wake.wait(lock,
                         [] { return g_thread_stop || detail::g_threads_waiting.load() == 0 || !calls_in_flight(); });
      detail::g_parked.store(false);
      if (g_thread_stop) return;
      lock.unlock();
    }
    lock.lock();
  }
}

}  // namespace

void set_progress_thread(bool on) {
  detail::g_thread_on.store(on, std::memory_order_relaxed);
}

void wake_progress_thread() {
  if (!progress_thread_on()) return;
  {
    const std::lock_guard<std::mutex> lock(g_thread_mutex);
    if (!g_thread_started.load(std::memory_order_relaxed) && !g_thread_stop) {
      // The caller is an application thread: its computation is what the
      // thread's polls must not take from.
      g_thread = std::thread(progress_loop, std::chrono::microseconds(config().progress_interval_us), own_thread_id());
      g_thread_started.store(true, std::memory_order_relaxed);
      log(LogLevel::kInfo,
          "progress thread started (while a call is in flight: a poll every %d us while the application runs, "
          "without a pause while it sleeps)",
          config().progress_interval_us);
    }
  }
  g_thread_wake.notify_one();
}

void detail::unpark() {
  { const std::lock_guard<std::mutex> lock(g_thread_mutex); }
  g_thread_wake.notify_one();
}

void stop_progress_thread() {
  {
    const std::lock_guard<std::mutex> lock(g_thread_mutex);
    g_thread_stop = true;
  }
  g_thread_wake.notify_one();
  if (g_thread.joinable()) g_thread.join();
}

}  // namespace nbrcoll
