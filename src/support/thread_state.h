// Whether another thread of this process runs or waits for a core (state R
// in /proc/self/task/TID/stat), read without stopping it: the progress
// thread (call/progress_thread.cpp) pauses between polls while the
// application thread that started it runs, and polls without a pause while
// it sleeps or blocks. Where the state cannot be read (not Linux, a thread
// gone): "runs", the cautious answer.
#pragma once

namespace nbrcoll {

// The calling thread's id (Linux's TID; 0 elsewhere).
long own_thread_id();

class ThreadState {
 public:
  explicit ThreadState(long tid);  // opens the thread's stat file once
  ~ThreadState();
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;
  // One read of the state (a pread of a few hundred bytes).
  [[nodiscard]] bool runs() const;

 private:
  int fd_ = -1;
};

}  // namespace nbrcoll
