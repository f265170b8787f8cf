// nbrcoll's progress thread (NBRCOLL_PROGRESS=thread): one per process,
// started by the first nonblocking or persistent call tracked, asleep on a
// condition variable while no call is in flight, and while one is, advancing
// the calls in flight (progress.h: progress_all) every interval while the
// application thread that started it runs, and without a pause (yielding the
// core) while that thread sleeps or blocks outside MPI, so that a
// forwarding plan's later steps (a leader's second hop, a bundle's
// scatter) move while the application computes between start and
// completion without entering MPI. It needs MPI_THREAD_MULTIPLE, which
// MPI_Init(_thread) asks the MPI for while the application is told the
// level it asked for (entry/init.cpp).
#pragma once

#include <atomic>

namespace nbrcoll {

namespace detail {
inline std::atomic<bool> g_thread_on{false};
inline std::atomic<int> g_threads_waiting{0};
// The progress thread is parked until no application thread waits.
inline std::atomic<bool> g_parked{false};
void unpark();
}  // namespace detail

// Whether the thread is wanted (the setting) and possible (the MPI gave
// MPI_THREAD_MULTIPLE). Decided once at MPI_Init by set_progress_thread().
inline bool progress_thread_on() {
  return detail::g_thread_on.load(std::memory_order_relaxed);
}
void set_progress_thread(bool on);

// While an application thread waits inside nbrcoll (a wait loop of
// entry/completion.cpp, a blocking call driving its end), that thread
// advances every call itself, and the progress thread stays out of its
// way: on shared cores its polls would take the waiting thread's core.
class WaitingInside {
 public:
  WaitingInside() : counted_(progress_thread_on()) {
    if (counted_) detail::g_threads_waiting.fetch_add(1);
  }
  ~WaitingInside() {
    if (counted_ && detail::g_threads_waiting.fetch_sub(1) == 1 && detail::g_parked.load()) detail::unpark();
  }
  WaitingInside(const WaitingInside&) = delete;
  WaitingInside& operator=(const WaitingInside&) = delete;

 private:
  bool counted_;
};

// Whether a thread per rank has a core to run on: `local_ranks` of the job
// on this host, `cpus` this process may run on (either 0: not known, and
// the thread is allowed). NBRCOLL_PROGRESS=thread starts none where they
// do not fit: its wake-ups would take the ranks' cores.
constexpr bool thread_fits(int local_ranks, int cpus) {
  return local_ranks <= 0 || cpus <= 0 || local_ranks <= cpus;
}

// After a call that needs progress is tracked (progress.cpp: a forwarding
// plan, or blocks the MPI may move by rendezvous): starts the thread the
// first time, wakes it. Nothing where the thread is off. A sleeping thread
// is woken by such calls only; once awake it advances every call in flight.
void wake_progress_thread();

// At MPI_Finalize, once every call in flight is done: the thread ends and
// is joined, before the MPI's own finalisation.
void stop_progress_thread();

}  // namespace nbrcoll
