#include "call/persistent.h"

#if NBRCOLL_PERSISTENT

#include <atomic>
#include <mutex>
#include <vector>

#include "call/operation.h"
#include "call/progress.h"
#include "call/tally.h"
#include "report/held_handles.h"
#include "report/run_counters.h"

namespace nbrcoll {

namespace {

std::mutex g_persistent_mutex;
std::vector<std::shared_ptr<PersistentCall>> g_persistent_calls;
std::atomic<std::size_t> g_persistent_count{0};
MPI_Comm g_carrier_comm = MPI_COMM_NULL;  // carriers' communicator
int g_next_carrier_tag = 0;               // one tag per carrier pair

std::shared_ptr<PersistentCall> find_persistent(MPI_Request request) {
  for (const auto& c : g_persistent_calls) {
    if (c->carrier == request) return c;
  }
  return nullptr;
}

// The call's plan, launched and tracked; with the run report's tallies
// (kReport) or without (no clock read): call/tally.h.
template <bool kReport>
void launch_started(const std::shared_ptr<PersistentCall>& call) {
  [[maybe_unused]] const CallClockIf<kReport> clock;
  auto op = std::make_shared<Operation>(call->info, *call->schedule, call->comm, call->decision, call->scratch);
  launch(*op, *call->sequence);
  std::shared_ptr<void> owner = call;
  if constexpr (kReport) {
    tally_call(call->kind, Mode::kPersistent, *op, clock.ticks());
    owner = tally_bytes_at_end(op, std::move(owner));
  }
  track_started(std::move(op), *call->sequence, call->carrier, call->trigger, std::move(owner));
}

}  // namespace

int register_persistent(std::shared_ptr<PersistentCall> call, MPI_Request* request) {
  const std::lock_guard<std::mutex> lock(g_persistent_mutex);
  if (g_carrier_comm == MPI_COMM_NULL) {
    if (const int rc = PMPI_Comm_dup(MPI_COMM_SELF, &g_carrier_comm); rc != MPI_SUCCESS) return rc;
    report::note_made(report::Handle::kCommunicator);  // for the rest of the run
  }
  const int tag = g_next_carrier_tag;
  g_next_carrier_tag = (g_next_carrier_tag + 1) % 32767;  // MPI_TAG_UB is at least 32767
  int rc = PMPI_Recv_init(nullptr, 0, MPI_BYTE, 0, tag, g_carrier_comm, &call->carrier);
  if (rc == MPI_SUCCESS) rc = PMPI_Send_init(nullptr, 0, MPI_BYTE, 0, tag, g_carrier_comm, &call->trigger);
  if (rc != MPI_SUCCESS) {
    if (call->carrier != MPI_REQUEST_NULL) PMPI_Request_free(&call->carrier);
    return rc;
  }
  report::note_made(report::Handle::kRequest, 2);
  *request = call->carrier;
  g_persistent_calls.push_back(std::move(call));
  g_persistent_count.fetch_add(1, std::memory_order_release);
  return MPI_SUCCESS;
}

bool persistent_calls_exist() {
  return g_persistent_count.load(std::memory_order_acquire) != 0;
}

bool start_persistent(MPI_Request* request, int& rc) {
  std::shared_ptr<PersistentCall> call;
  {
    const std::lock_guard<std::mutex> lock(g_persistent_mutex);
    call = find_persistent(*request);
  }
  if (!call) return false;
  if (in_flight(call->carrier)) {
    rc = MPI_ERR_REQUEST;  // started again before it completed: erroneous
    return true;
  }
  rc = PMPI_Start(&call->carrier);
  if (rc != MPI_SUCCESS) return true;
  if (report::on()) {
    launch_started<true>(call);
  } else {
    launch_started<false>(call);
  }
  return true;
}

bool free_persistent(MPI_Request* request) {
  std::shared_ptr<PersistentCall> call;
  {
    const std::lock_guard<std::mutex> lock(g_persistent_mutex);
    call = find_persistent(*request);
    if (!call) return false;
    std::erase(g_persistent_calls, call);
    g_persistent_count.fetch_sub(1, std::memory_order_release);
  }
  *request = MPI_REQUEST_NULL;
  for (MPI_Request* r : {&call->carrier, &call->trigger}) {
    if (PMPI_Request_free(r) == MPI_SUCCESS) report::note_freed(report::Handle::kRequest);
  }
  return true;
}

}  // namespace nbrcoll

#endif
