#include "state/pending_steps.h"

#include <mpi.h>

#include <mutex>
#include <vector>

namespace nbrcoll {

namespace {

std::mutex g_lock;
std::vector<std::weak_ptr<PendingStep>> g_steps;

}  // namespace

void PendingStep::settle_while_mpi_lives() {
  int finalized = 1;
  PMPI_Finalized(&finalized);
  if (!finalized) settle();
}

void track_pending_step(const std::shared_ptr<PendingStep>& step) {
  const std::lock_guard<std::mutex> hold(g_lock);
  std::erase_if(g_steps, [](const std::weak_ptr<PendingStep>& p) { return p.expired(); });
  g_steps.push_back(step);
}

void settle_pending_steps() {
  std::vector<std::shared_ptr<PendingStep>> live;
  {
    const std::lock_guard<std::mutex> hold(g_lock);
    for (const std::weak_ptr<PendingStep>& p : g_steps)
      if (std::shared_ptr<PendingStep> step = p.lock()) live.push_back(std::move(step));
    g_steps.clear();
  }
  for (const std::shared_ptr<PendingStep>& step : live) step->settle();
}

}  // namespace nbrcoll
