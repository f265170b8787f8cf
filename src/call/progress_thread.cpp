#include "call/progress_thread.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "call/progress.h"
#include "support/config.h"
#include "support/log.h"
#include "support/thread_state.h"

namespace nbrcoll {

namespace {

std::mutex g_thread_mutex;
std::condition_variable g_thread_wake;
bool g_thread_stop = false;  // under g_thread_mutex
std::thread g_thread;        // started under g_thread_mutex
std::atomic<bool> g_thread_started{false};

// After each poll the progress thread reads the state of the application
// thread that started it (support/thread_state.h). While that thread runs
// or waits for a core (computing, or spinning in an MPI call), the next
// poll comes after the pause, so as not to take its core; while it sleeps
// or blocks, the progress thread only yields the core between polls. A
// forwarding call of a few KiB lasts a few 20 us pauses, so a pause after
// every poll made each hop it forwards wait for the next poll: behind an
// idle wait the forwarding plans hid 37-41% of themselves at 4 KiB with it,
// 90-94% without (bench/RESULTS.md, "Overlap with computation"). Its state,
// not its CPU time: a thread polling without a pause on the application's
// core takes its share of that core, so the application's CPU time falls
// and reads as idle (a rank a core: linear 64 KiB calls behind busy work
// then hid 52-73% of themselves instead of 95%).
void progress_loop(std::chrono::microseconds interval, long app_thread) {
#if defined(__linux__)
  // Linux wakes a sleeper up to 50 us late by default (timer slack); the
  // interval is the pause asked for.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
#endif
  const ThreadState app(app_thread);
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
      if (interval.count() > 0 && pause) {
        std::this_thread::sleep_for(interval);
      } else {
        std::this_thread::yield();
      }
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
