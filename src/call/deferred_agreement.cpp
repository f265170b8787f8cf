#include "call/deferred_agreement.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "support/depth_mark.h"
#include "support/log.h"

namespace nbrcoll {

namespace {

// Agreements started and not yet destroyed, for the looks.
std::mutex g_registry_lock;
std::vector<DeferredAgreement*> g_registry;
std::atomic<int> g_live{0};

// Whether this thread is inside a step of an agreement: an MPI call there
// may run the MPI's progress loop, whose look must not step one again.
thread_local int t_stepping = 0;
struct Stepping : DepthMark {
  Stepping() : DepthMark(t_stepping) {}
};

}  // namespace

// Every registered agreement but `skip`, polled once where no one else
// steps it; whether any is still open (or stepped elsewhere). The
// registry's lock is held throughout, so none is destroyed meanwhile (a
// destructor takes it to leave the registry).
bool look_at_others(const DeferredAgreement* skip) {
  bool open = false;
  const std::lock_guard<std::mutex> registry(g_registry_lock);
  for (DeferredAgreement* p : g_registry) {
    if (p == skip) continue;
    if (!p->lock_.try_lock()) {
      open = true;
      continue;
    }
    open = !p->poll_locked() || open;
    p->lock_.unlock();
  }
  return open;
}

bool DeferredAgreement::poll_locked() {
  if (started_ != MPI_SUCCESS || reduce_.finished()) return true;
  reduce_.poll();
  return reduce_.finished();
}

void DeferredAgreement::start(MPI_Comm channel, int rank, int size, const std::vector<int>* comm_rank, int tag) {
  {
    const Stepping here;
    const std::lock_guard<std::mutex> hold(lock_);
    started_ = channel == MPI_COMM_NULL ? MPI_ERR_COMM : reduce_.start(channel, rank, size, comm_rank, tag, &terms_);
  }
  const std::lock_guard<std::mutex> registry(g_registry_lock);
  g_registry.push_back(this);
  registered_ = true;
  g_live.fetch_add(1, std::memory_order_relaxed);
}

void DeferredAgreement::look() {
  if (t_stepping != 0) return;
  const Stepping here;
  if (!lock_.try_lock()) return;
  poll_locked();
  lock_.unlock();
}

const std::vector<std::int64_t>& DeferredAgreement::complete() {
  const Stepping here;
  for (;;) {
    {
      const std::lock_guard<std::mutex> hold(lock_);
      if (poll_locked()) {
        int rc = started_;
        if (rc == MPI_SUCCESS) rc = reduce_.wait();  // finished: its error, if any
        if (rc != MPI_SUCCESS) {
          log(LogLevel::kWarn, "auto's nonblocking timing agreement failed; nothing settles at this call");
          terms_.assign(terms_.size(), 0);
        }
        completed_ = true;
        return terms_;
      }
    }
    look_at_others(this);
    sched_yield();
  }
}

DeferredAgreement::~DeferredAgreement() {
  if (!registered_) return;
  int finalized = 1;
  PMPI_Finalized(&finalized);
  if (!finalized && !completed_) complete();
  const std::lock_guard<std::mutex> registry(g_registry_lock);
  g_registry.erase(std::find(g_registry.begin(), g_registry.end(), this));
  g_live.fetch_sub(1, std::memory_order_relaxed);
}

void look_at_deferred_agreements() {
  if (g_live.load(std::memory_order_relaxed) == 0 || t_stepping != 0) return;
  const Stepping here;
  look_at_others(nullptr);
}

void finish_deferred_agreements() {
  const Stepping here;
  while (look_at_others(nullptr)) sched_yield();
}

}  // namespace nbrcoll
