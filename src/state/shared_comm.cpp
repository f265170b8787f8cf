#include "state/shared_comm.h"

#include <algorithm>
#include <mutex>

#include "report/held_handles.h"
#include "state/tag_blocks.h"
#include "support/at_finalize.h"
#include "support/config.h"
#include "support/log.h"

namespace nbrcoll {

namespace {

MPI_Comm g_shared = MPI_COMM_NULL;

std::mutex g_serial_mutex;
std::int64_t g_next_serial = 0;  // one more than the largest serial agreed on
int g_claims_open = 0;

}  // namespace

void open_shared_comm() {
  if (config().disable || !config().shared_comm || g_shared != MPI_COMM_NULL) return;
  MPI_Comm made = MPI_COMM_NULL;
  // Collective over MPI_COMM_WORLD: every rank runs the same configuration.
  if (quiet_copy(MPI_COMM_WORLD, &made) != MPI_SUCCESS) {
    log(LogLevel::kWarn, "cannot copy MPI_COMM_WORLD; every graph makes a communicator of its own");
    return;
  }
  PMPI_Comm_set_errhandler(made, MPI_ERRORS_RETURN);
  // The shared communicator goes at MPI_Finalize, while MPI still works.
  const int hooked = at_finalize([] {
    if (g_shared != MPI_COMM_NULL && PMPI_Comm_free(&g_shared) == MPI_SUCCESS)
      report::note_freed(report::Handle::kCommunicator);
  });
  if (hooked != MPI_SUCCESS) {
    // Left for the MPI to reclaim at MPI_Finalize; still usable.
    log(LogLevel::kInfo, "cannot hook MPI_Finalize to free the shared communicator");
  }
  g_shared = made;
}

MPI_Comm shared_comm() {
  return g_shared;
}

int quiet_copy(MPI_Comm comm, MPI_Comm* made) {
  // Any tag: the application has nothing in flight on comm (shared_comm.h).
  constexpr int kCopyTag = 0;
  *made = MPI_COMM_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  int rc = PMPI_Comm_group(comm, &group);
  if (rc != MPI_SUCCESS) return rc;
  report::note_made(report::Handle::kGroup);
  rc = PMPI_Comm_create_group(comm, group, kCopyTag, made);
  if (rc == MPI_SUCCESS && *made != MPI_COMM_NULL) report::note_made(report::Handle::kCommunicator);
  if (PMPI_Group_free(&group) == MPI_SUCCESS) report::note_freed(report::Handle::kGroup);
  return rc;
}

std::int64_t agreed_serials() {
  return graph_serials(tag_upper_bound()) / 2;
}

long long tag_upper_bound() {
  static const long long tag_ub = [] {
    int* value = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
    return flag != 0 && value != nullptr ? static_cast<long long>(*value) : 32767LL;
  }();
  return tag_ub;
}

SerialClaim::SerialClaim() {
  const std::lock_guard<std::mutex> lock(g_serial_mutex);
  proposal_ = g_next_serial;
  alone_ = g_claims_open == 0;
  ++g_claims_open;
}

void SerialClaim::settle(std::int64_t last) {
  const std::lock_guard<std::mutex> lock(g_serial_mutex);
  g_next_serial = std::max(g_next_serial, last + 1);
  if (open_) --g_claims_open;
  open_ = false;
}

SerialClaim::~SerialClaim() {
  if (!open_) return;
  const std::lock_guard<std::mutex> lock(g_serial_mutex);
  --g_claims_open;
}

}  // namespace nbrcoll
