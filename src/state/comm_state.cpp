#include "state/comm_state.h"

#include <chrono>
#include <mutex>
#include <new>

#include "report/held_handles.h"
#include "state/late_plans.h"
#include "state/shared_comm.h"
#include "state/tag_blocks.h"
#include "support/at_finalize.h"
#include "support/log.h"

namespace nbrcoll {

namespace {

int g_keyval = MPI_KEYVAL_INVALID;

// Completes the idup that makes `own` (every rank started it in the same
// collective call); starts nothing. A failed idup leaves no communicator.
void complete_idup(OwnedComm& own) {
  if (own.pending == MPI_REQUEST_NULL) return;
  const auto start = std::chrono::steady_clock::now();
  if (PMPI_Wait(&own.pending, MPI_STATUS_IGNORE) != MPI_SUCCESS) own.comm = MPI_COMM_NULL;
  if (own.pending == MPI_REQUEST_NULL) report::note_freed(report::Handle::kRequest);
  if (own.comm != MPI_COMM_NULL) PMPI_Comm_set_errhandler(own.comm, MPI_ERRORS_RETURN);
  log(LogLevel::kTrace, "private communicator of a duplicate completed, after %.0f us of waiting",
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
}

// A duplicate of a handle on the shared communicator: the next block of its
// graph, or none (its calls go to the MPI's own collectives). No MPI call.
int copy_shared(CommState& from, void* attribute_val_out, int* flag) {
  const int handle = duplicate_handle(from.own->handle, ++from.own->duplicates);
  if (handle < 0) {
    log(LogLevel::kInfo,
        "no tag block left for this duplicate (%d per graph, %d duplicates per handle): its calls use the MPI's own "
        "collectives",
        kHandlesPerGraph, kDupBranching);
    return MPI_SUCCESS;
  }
  auto* copy =
      new (std::nothrow) CommState{from.info, nullptr, nullptr, std::make_shared<CallSequence>(), {}, {}, 0, {}, {}};
  if (copy == nullptr) return MPI_SUCCESS;
  try {
    copy->own = std::make_shared<OwnedComm>(from.own->serial, handle);
  } catch (const std::bad_alloc&) {
    delete copy;
    return MPI_SUCCESS;
  }
  *flag = 1;
  *static_cast<void**>(attribute_val_out) = copy;
  return MPI_SUCCESS;
}

// MPI_Comm_dup: the duplicate shares the plans and gets its own channel: a
// tag block of the shared communicator, or a private communicator, an idup
// of the original's, completed on its first call.
int copy_state(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  auto* from = static_cast<CommState*>(attribute_val_in);
  *flag = 0;
  if (from->own && from->own->shared) return copy_shared(*from, attribute_val_out, flag);
  // The duplicate's idup reads the original's private communicator, which
  // must be complete first, and so must the idup of the original's previous
  // duplicate (OwnedComm::newest_copy). Every rank is in this MPI_Comm_dup.
  channel_comm(*from);
  if (from->own) {
    if (const std::shared_ptr<OwnedComm> previous = from->own->newest_copy.lock()) complete_idup(*previous);
  }
  auto* copy =
      new (std::nothrow) CommState{from->info, nullptr, from->own, std::make_shared<CallSequence>(), {}, {}, 0, {}, {}};
  if (copy == nullptr) return MPI_SUCCESS;
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request pending = MPI_REQUEST_NULL;
  const MPI_Comm base = from->own ? from->own->comm : MPI_COMM_NULL;
  if (base == MPI_COMM_NULL || PMPI_Comm_idup(base, &dup, &pending) != MPI_SUCCESS ||
      (copy->own = std::make_shared<OwnedComm>(dup)) == nullptr) {
    // No state on this rank's duplicate: its calls go to PMPI. Every rank
    // fails alike in practice (the idup is local bookkeeping until completed).
    log(LogLevel::kWarn, "cannot start the private communicator of a duplicated graph communicator");
    delete copy;
    return MPI_SUCCESS;
  }
  report::note_made(report::Handle::kCommunicator);
  report::note_made(report::Handle::kRequest);
  copy->own->pending = pending;
  from->own->newest_copy = copy->own;
  *flag = 1;
  *static_cast<void**>(attribute_val_out) = copy;
  return MPI_SUCCESS;
}

int delete_state(MPI_Comm, int, void* attribute_val, void*) {
  auto* state = static_cast<CommState*>(attribute_val);
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (!finalized && state->own) complete_idup(*state->own);
  if (!finalized) settle_late_planning(*state);
  delete state;  // frees the private communicators no other state holds
  return MPI_SUCCESS;
}

// Once per process (threads may create graphs concurrently under MPI_THREAD_MULTIPLE).
int ensure_keyval() {
  static std::once_flag once;
  static int result = MPI_SUCCESS;
  std::call_once(once, [] {
    result = PMPI_Comm_create_keyval(copy_state, delete_state, &g_keyval, nullptr);
    if (result != MPI_SUCCESS) return;
    report::note_made(report::Handle::kKeyval);
    result = at_finalize([] {
      if (PMPI_Comm_free_keyval(&g_keyval) == MPI_SUCCESS) report::note_freed(report::Handle::kKeyval);
    });
  });
  return result;
}

}  // namespace

OwnedComm::OwnedComm(MPI_Comm c) : comm(c), ack_tag(static_cast<int>(tag_upper_bound())) {}

OwnedComm::OwnedComm(std::int64_t graph_serial, int handle_index)
    : comm(shared_comm()),
      shared(true),
      serial(graph_serial),
      handle(handle_index),
      tag_base(static_cast<int>(tag_block_base(graph_serial, handle_index))),
      ack_tag(static_cast<int>(tag_block_base(graph_serial, handle_index) + kTagBlock - 1)) {}

OwnedComm::~OwnedComm() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (comm != MPI_COMM_NULL && !shared && !finalized && PMPI_Comm_free(&comm) == MPI_SUCCESS)
    report::note_freed(report::Handle::kCommunicator);
}

int attach_state(MPI_Comm graph_comm, std::shared_ptr<const GraphInfo> info, std::shared_ptr<OwnedComm> channel) {
  const int rc = ensure_keyval();
  if (rc != MPI_SUCCESS) return rc;
  auto* state = new CommState{};
  state->info = std::move(info);
  state->own = std::move(channel);  // a private communicator goes with the state where this fails
  state->sequence = std::make_shared<CallSequence>();
  if (!state->own->shared) PMPI_Comm_set_errhandler(state->own->comm, MPI_ERRORS_RETURN);
  const int attached = PMPI_Comm_set_attr(graph_comm, g_keyval, state);
  if (attached != MPI_SUCCESS) delete state;
  return attached;
}

CommState* find_state(MPI_Comm comm) {
  if (g_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
  void* value = nullptr;
  int flag = 0;
  if (PMPI_Comm_get_attr(comm, g_keyval, &value, &flag) != MPI_SUCCESS || !flag) return nullptr;
  return static_cast<CommState*>(value);
}

MPI_Comm channel_comm(CommState& state) {
  if (!state.own) return MPI_COMM_NULL;
  complete_idup(*state.own);
  return state.own->comm;
}

}  // namespace nbrcoll
