#include "call/progress.h"

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <vector>

#include "call/operation.h"
#include "call/progress_thread.h"
#include "call/trial_ticket.h"
#include "report/held_handles.h"
#include "state/comm_state.h"
#include "support/log.h"
#include "support/mpi_identity.h"

namespace nbrcoll {

namespace {

// What the request reports once the call is done; freed by MPI through
// free_fn when the request is.
struct Outcome {
  int error = MPI_SUCCESS;
};

struct Tracked {
  std::shared_ptr<Operation> op;
  MPI_Request request = MPI_REQUEST_NULL;  // the application's
  Outcome* outcome = nullptr;              // generalized request: its status
  MPI_Request trigger = MPI_REQUEST_NULL;  // persistent: completes `request`
  // Persistent: the call's state; with the run report, also what adds the
  // call's bytes when the call is let go (call/tally.h).
  std::shared_ptr<void> owner;
};

std::mutex g_mutex;
std::vector<Tracked> g_calls;
std::atomic<std::size_t> g_count{0};

// A collective's status: empty, as MPI gives it.
int query_fn(void* extra, MPI_Status* status) {
  const auto* outcome = static_cast<const Outcome*>(extra);
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = outcome->error;
  return outcome->error;
}

int free_fn(void* extra) {
  delete static_cast<Outcome*>(extra);
  report::note_freed(report::Handle::kRequest);
  return MPI_SUCCESS;
}

// MPI_Cancel of a call in flight is answered in completion.cpp; a completed
// collective cannot be cancelled.
int cancel_fn(void* /*extra*/, int /*complete*/) {
  return MPI_SUCCESS;
}

// Completes the application's request of `t`, taken out of the list (under
// g_mutex, or alone: finish_sole_call), then lets `t` go (its owner, the
// run report's tally, may read the scratch) and gives the call's scratch
// back, warm for the next call.
void complete(Tracked t) {
  if (t.trigger != MPI_REQUEST_NULL) {
    // Persistent: the carrier's status cannot carry an error, so it is reported here.
    if (t.op->error() != MPI_SUCCESS)
      log(LogLevel::kWarn, "persistent neighborhood collective failed with MPI error %d", t.op->error());
    PMPI_Start(&t.trigger);
    PMPI_Wait(&t.trigger, MPI_STATUS_IGNORE);  // its receive is posted: matches at once
  } else {
    t.outcome->error = t.op->error();
    PMPI_Grequest_complete(t.request);
  }
  g_count.fetch_sub(1, std::memory_order_release);
  const std::shared_ptr<Operation> op = std::move(t.op);
  t = {};
  // A trial of auto's measured choice: its time, start to now (call/tuning.h).
  trial_done(op->scratch().trial);
  op->release_scratch();
}

// Caller holds g_mutex.
void advance_locked() {
  for (std::size_t i = 0; i < g_calls.size();) {
    if (g_calls[i].op->progress(false)) {
      Tracked done = std::move(g_calls[i]);
      g_calls.erase(g_calls.begin() + static_cast<std::ptrdiff_t>(i));
      complete(std::move(done));
    } else {
      ++i;
    }
  }
}

// Whether `op` travels in window 0 as a whole: a call this rank runs linear
// (launch()). Its peers send and receive its blocks in window 0 too, since
// every linear fragment travels there (transport/channel.h).
bool in_linear_window(const Operation& op) {
  return op.info().tag_windows > 1 && op.decision().path == Path::kLinear;
}

// `op`, a call now in flight, is the one a later call in its window waits for.
// The window vector is sized by the first call that stays in flight: a
// handle whose calls all block never allocates it.
void remember_in_flight(CallSequence& sequence, const std::shared_ptr<Operation>& op) {
  if (in_linear_window(*op)) return;  // nobody waits for it (launch())
  sequence.window.resize(static_cast<std::size_t>(op->info().tag_windows));
  sequence.window[static_cast<std::size_t>(op->tag_offset() / op->info().tag_stride)] = op;
}

// Whether a call in flight has anything for the progress thread: later
// steps of nbrcoll's own (a forwarding plan), or a message large enough
// that the MPI may move it by rendezvous, which waits for progress on both
// ends (Open MPI's and MPICH's transports send eagerly up to 4-64 KiB).
// A linear call of small blocks is all posted at its start and moves
// without it: waking the thread would only cost a wake-up.
constexpr std::uint64_t kEagerBytes = std::uint64_t{32} * 1024;

bool needs_progress(const Operation& op) {
  if (!op.posted_at_start()) return true;
  const engine::BlockTable& b = op.scratch().layout.blocks();
  const auto large = [](std::uint64_t bytes) { return bytes >= kEagerBytes; };
  return std::any_of(b.send_bytes.begin(), b.send_bytes.end(), large) ||
         std::any_of(b.slot_bytes.begin(), b.slot_bytes.end(), large);
}

}  // namespace

void launch(Operation& op, CallSequence& sequence) {
  const AdvancingHere in;
  const GraphInfo& info = op.info();
  if (in_linear_window(op)) {
    // Window 0 holds every linear fragment: they are all posted when their
    // call starts, in call order on every rank, so any number of calls in
    // flight match call by call without waiting for each other, and a
    // repeated call's kept messages (standing_messages.h) keep their tags.
    // Not kept for a call its tuner is still trying: its variants may
    // change at the next call, and messages kept meanwhile would stand
    // unused after. A settled tuned call keeps them (until an agreement
    // changes its choice: a new layout, a new set), as halo loops need:
    // repeated nonblocking calls read 0.90-0.94x the MPI's own without.
    ++sequence.calls;
    op.start(0, !op.decision().trying);
    return;
  }
  // The other calls take windows 1 to tag_windows - 1 in turn (0 if it is the only one).
  const std::uint64_t rotating = info.tag_windows > 1 ? static_cast<std::uint64_t>(info.tag_windows) - 1 : 1;
  const std::uint64_t first = info.tag_windows > 1 ? 1 : 0;
  const auto w = static_cast<std::size_t>(first + sequence.calls % rotating);
  if (w < sequence.window.size()) {
    if (const std::shared_ptr<Operation>& previous = sequence.window[w]; previous && !previous->done()) {
      wait_tracked(*previous);
    }
    sequence.window[w].reset();
  }
  ++sequence.calls;
  op.start(static_cast<int>(w) * info.tag_stride, rotating == 1);
}

bool calls_in_flight() {
  return g_count.load(std::memory_order_acquire) != 0;
}

int track(std::shared_ptr<Operation> op, CallSequence& sequence, MPI_Request* request, std::shared_ptr<void> owner) {
  remember_in_flight(sequence, op);
  auto* outcome = new Outcome;
  MPI_Request req = MPI_REQUEST_NULL;
  const int rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, outcome, &req);
  if (rc != MPI_SUCCESS) {
    delete outcome;
    drive_to_end(*op);  // its peers still need it
    return rc;
  }
  report::note_made(report::Handle::kRequest);  // until free_fn
  *request = req;
  const bool wake = progress_thread_on() && needs_progress(*op);
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_calls.push_back({std::move(op), req, outcome, MPI_REQUEST_NULL, std::move(owner)});
    g_count.fetch_add(1, std::memory_order_release);
  }
  if (wake) wake_progress_thread();
  return MPI_SUCCESS;
}

void track_started(std::shared_ptr<Operation> op, CallSequence& sequence, MPI_Request carrier, MPI_Request trigger,
                   std::shared_ptr<void> owner) {
  remember_in_flight(sequence, op);
  const bool wake = progress_thread_on() && needs_progress(*op);
  {
    const std::lock_guard<std::mutex> lock(g_mutex);
    g_calls.push_back({std::move(op), carrier, nullptr, trigger, std::move(owner)});
    g_count.fetch_add(1, std::memory_order_release);
  }
  if (wake) wake_progress_thread();
}

void progress_all() {
  const AdvancingHere in;
  const std::unique_lock<std::mutex> lock(g_mutex, std::try_to_lock);
  if (lock.owns_lock()) advance_locked();
}

void drive_to_end(Operation& op) {
  const AdvancingHere in;
  const WaitingInside waiting;
  if (!calls_in_flight()) {
    op.progress(true);
    return;
  }
  Backoff backoff;
  while (!op.progress(false)) {
    progress_all();
    backoff.pause();
  }
}

void wait_tracked(const Operation& op) {
  const AdvancingHere in;
  const WaitingInside waiting;
  Backoff backoff;
  while (!op.done()) {
    progress_all();
    backoff.pause();
  }
}

void finish_sole_call(int count, const MPI_Request* requests) {
  if (g_count.load(std::memory_order_acquire) != 1 || requests == nullptr) return;
  std::unique_lock<std::mutex> lock(g_mutex);
  if (g_calls.size() != 1 || std::find(requests, requests + count, g_calls.front().request) == requests + count) return;
  // Under MPI_THREAD_MULTIPLE other threads may start, advance and wait for
  // calls meanwhile, so only a call that needs nothing of nbrcoll's after
  // its start is taken, and it is polled alone (advancing the others too
  // once another call is in flight, as the MPI's own wait would); the list
  // stays free either way.
  const bool threads = mpi_threads_concurrent();
  if (threads && !g_calls.front().op->posted_at_start()) return;
  Tracked claimed = std::move(g_calls.front());
  g_calls.clear();
  lock.unlock();
  const AdvancingHere in;
  if (!threads) {
    claimed.op->progress(true);
  } else {
    for (Backoff backoff; !claimed.op->progress(false); backoff.pause()) {
      if (g_count.load(std::memory_order_acquire) > 1) progress_all();
    }
  }
  complete(std::move(claimed));
}

bool in_flight(MPI_Request request) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return std::any_of(g_calls.begin(), g_calls.end(), [&](const Tracked& t) { return t.request == request; });
}

void drain() {
  Backoff backoff;
  while (calls_in_flight()) {
    progress_all();
    backoff.pause();
  }
}

int active_collective_refusal(bool cancel) {
  static const std::array<int, 2> answers = [] {
    // Asked with errors returned, so that the question itself aborts nothing.
    MPI_Errhandler world = MPI_ERRHANDLER_NULL;
    MPI_Errhandler self = MPI_ERRHANDLER_NULL;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &world);
    PMPI_Comm_get_errhandler(MPI_COMM_SELF, &self);
    report::note_made(report::Handle::kErrhandler, 2);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    std::array<int, 2> rc{};
    for (std::size_t k = 0; k < 2; ++k) {
      MPI_Request r = MPI_REQUEST_NULL;
      PMPI_Ibarrier(MPI_COMM_SELF, &r);
      if (r != MPI_REQUEST_NULL) report::note_made(report::Handle::kRequest);
      rc[k] = k == 0 ? PMPI_Request_free(&r) : PMPI_Cancel(&r);
      if (r != MPI_REQUEST_NULL) PMPI_Wait(&r, MPI_STATUS_IGNORE);
      if (r == MPI_REQUEST_NULL) report::note_freed(report::Handle::kRequest);
      if (rc[k] == MPI_SUCCESS) rc[k] = MPI_ERR_REQUEST;
    }
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, world);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, self);
    for (MPI_Errhandler* e : {&world, &self}) {
      if (PMPI_Errhandler_free(e) == MPI_SUCCESS) report::note_freed(report::Handle::kErrhandler);
    }
    return rc;
  }();
  return answers[cancel ? 1 : 0];
}

void Backoff::pause() {
  if (++rounds_ > 64) sched_yield();
}

}  // namespace nbrcoll
