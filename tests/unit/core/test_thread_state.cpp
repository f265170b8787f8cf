// support/thread_state.h: a thread blocked on a condition variable reads as
// not running, a spinning one as running at every read (runnable counts),
// and a thread whose state cannot be read as running (the cautious answer
// the progress thread pauses on).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "support/thread_state.h"

#if defined(__linux__)
#include <unistd.h>
#endif

namespace nbrcoll {
namespace {

#if defined(__linux__)
TEST(ThreadState, ABlockedThreadDoesNotRunAndASpinningOneDoes) {
  std::mutex m;
  std::condition_variable cv;
  bool release = false;
  std::atomic<long> blocked_tid{0};
  std::thread blocked([&] {
    blocked_tid = own_thread_id();
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return release; });
  });
  std::atomic<bool> stop{false};
  std::atomic<long> spinning_tid{0};
  std::thread spinning([&] {
    spinning_tid = own_thread_id();
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  while (blocked_tid.load() == 0 || spinning_tid.load() == 0) std::this_thread::yield();

  // The blocked thread may still be on its way into the wait: it reads as
  // not running within 2 s (at once, in practice).
  const ThreadState blocked_state(blocked_tid.load());
  bool seen_blocked = false;
  for (int i = 0; i < 200 && !seen_blocked; ++i) {
    seen_blocked = !blocked_state.runs();
    if (!seen_blocked) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(seen_blocked);

  const ThreadState spinning_state(spinning_tid.load());
  int running = 0;
  for (int i = 0; i < 50; ++i) running += spinning_state.runs() ? 1 : 0;
  EXPECT_EQ(running, 50);

  stop = true;
  {
    const std::lock_guard<std::mutex> lock(m);
    release = true;
  }
  cv.notify_one();
  blocked.join();
  spinning.join();
}

TEST(ThreadState, AThreadWithoutAStateRuns) {
  const ThreadState none(-1);
  EXPECT_TRUE(none.runs());
}

TEST(ThreadState, OwnThreadIdIsTheProcessIdOnTheMainThread) {
  EXPECT_EQ(own_thread_id(), static_cast<long>(::getpid()));
}
#endif

}  // namespace
}  // namespace nbrcoll
