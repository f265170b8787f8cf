#include "call/collective.h"

#include <memory>

#include "call/decide.h"
#include "call/operation.h"
#include "call/persistent.h"
#include "call/pmpi_handoff.h"
#include "call/progress.h"
#include "call/tally.h"
#include "call/tuning.h"
#include "report/run_counters.h"
#include "state/late_plans.h"
#include "state/schedules.h"
#include "support/log.h"
#include "support/watchdog.h"

namespace nbrcoll {

namespace {

void report_error(const UserCall& c, Mode mode, int rc) {
  log(LogLevel::kInfo, "%s failed with MPI error %d", call_name(c, mode), rc);
  PMPI_Comm_call_errhandler(c.comm, rc);
}

const algos::Schedule& schedule_of(const CommState& state, const UserCall& c) {
  return schedule_for(*state.info, c.alltoall());
}

// Blocking calls' scratches of freed handles, kept for the next handle's
// first call: programs that make a graph, call it a few times and free it
// (mesh set-up) then neither size a scratch's vectors at every first call
// nor free them with every handle. Never destroyed: a handle may be freed
// while the process exits.
ScratchPool& spare_scratches() {
  static auto* pool = new ScratchPool(8);
  return *pool;
}

// The handle's scratch for its blocking calls, taken on the first; it goes
// back to the spares, without its data buffers, when the handle is freed.
CallScratch& blocking_scratch(CommState& state) {
  if (!state.scratch) {
    state.scratch = std::shared_ptr<CallScratch>(spare_scratches().take().release(), [](CallScratch* spare) {
      spare->release_data();
      spare_scratches().give(std::unique_ptr<CallScratch>(spare));
    });
  }
  return *state.scratch;
}

// A scratch for a nonblocking call of the handle, from its pool: one that
// served a call on the same buffers last if one is free (its decision and
// kept messages may serve again: decide()), else any.
std::unique_ptr<CallScratch> nonblocking_scratch(CommState* state, const UserCall& c) {
  if (state == nullptr) return std::make_unique<CallScratch>();
  if (!state->pool) state->pool = std::make_shared<ScratchPool>();
  return state->pool->take([&](const CallScratch& s) { return s.repeat.may_match(c, s.args); });
}

// The bodies below, once with the run report's tallies (kReport) and once
// without: the entry points test report::on() once and a run without the
// report pays nothing else (report/run_counters.h).
template <bool kReport>
int blocking_body(const UserCall& c) {
  [[maybe_unused]] const CallClockIf<kReport> clock;
  CommState* state = find_state(c.comm);
  if (state == nullptr) {
    if constexpr (kReport) tally_handoff(handoff_without_state());
    return pmpi_blocking(c);
  }
  // A graph that plans late may plan now, on every rank alike, whatever
  // this call's arguments (late_plans.h).
  plan_if_due(*state);
  // Watched from its start: on private communicators a duplicate's first
  // call completes its idup (decide), and a late rank holds the others there.
  const WatchedCall watched(call_name(c, Mode::kBlocking), state->sequence->calls + 1, *state->info);
  CallScratch& s = blocking_scratch(*state);
  const Decision d = decide(c, Mode::kBlocking, state, s);
  if (!d.taken()) {
    if constexpr (kReport) tally_handoff(d.handoff);
    return pmpi_blocking(c);
  }
  int rc = d.error;
  if (rc == MPI_SUCCESS) {
    Operation op(state->info, schedule_of(*state, c), state->own, d, s);
    launch(op, *state->sequence);
    drive_to_end(op);
    rc = op.error();
    // A call on trial is timed for auto's measured choice (call/tuning.h).
    if (d.trial) tuner_for(*state, c.alltoall())->end_call(tuning_clock_ns() - s.trial.started_ns);
    if constexpr (kReport) tally_blocking_call(c.kind, op, clock.ticks());
  }
  if (rc != MPI_SUCCESS) report_error(c, Mode::kBlocking, rc);
  advance_late_planning(*state);
  return rc;
}

template <bool kReport>
int nonblocking_body(const UserCall& c, MPI_Request* request) {
  [[maybe_unused]] const CallClockIf<kReport> clock;
  if (request == nullptr) {
    if constexpr (kReport) tally_handoff(Handoff::kNullRequest);
    return pmpi_nonblocking(c, request);
  }
  CommState* state = find_state(c.comm);
  // Where these calls may forward, they count towards a late-planning
  // graph's plans (late_plans.h).
  if (state != nullptr && nonblocking_may_forward(c.alltoall(), *state->info)) plan_if_due(*state);
  std::unique_ptr<CallScratch> s = nonblocking_scratch(state, c);
  const Decision d = decide(c, Mode::kNonblocking, state, *s);
  if (!d.taken()) {
    if (state != nullptr) state->pool->give(std::move(s));
    if constexpr (kReport) tally_handoff(d.handoff);
    return pmpi_nonblocking(c, request);
  }
  int rc = d.error;
  if (rc == MPI_SUCCESS) {
    auto op =
        std::make_shared<Operation>(state->info, schedule_of(*state, c), state->own, d, std::move(s), state->pool);
    launch(*op, *state->sequence);
    if constexpr (kReport) {
      tally_call(c.kind, Mode::kNonblocking, *op, clock.ticks());
      rc = track(op, *state->sequence, request, tally_bytes_at_end(op, nullptr));
    } else {
      rc = track(op, *state->sequence, request);
    }
  }
  if (rc != MPI_SUCCESS) report_error(c, Mode::kNonblocking, rc);
  return rc;
}

}  // namespace

int neighbor_collective(const UserCall& c) {
  return report::on() ? blocking_body<true>(c) : blocking_body<false>(c);
}

int ineighbor_collective(const UserCall& c, MPI_Request* request) {
  return report::on() ? nonblocking_body<true>(c, request) : nonblocking_body<false>(c, request);
}

#if NBRCOLL_PERSISTENT
// Everything but the packing of the send data is done here, once: the
// arguments, block sizes, variants and path hold for every start (each
// start is a call of the run report: persistent.cpp).
int neighbor_collective_init(const UserCall& c, MPI_Info mpi_info, MPI_Request* request) {
  if (request == nullptr) {
    if (report::on()) tally_handoff(Handoff::kNullRequest);
    return pmpi_persistent(c, mpi_info, request);
  }
  CommState* state = find_state(c.comm);
  if (state != nullptr && nonblocking_may_forward(c.alltoall(), *state->info)) plan_if_due(*state);
  auto call = std::make_shared<PersistentCall>();
  call->decision = decide(c, Mode::kPersistent, state, call->scratch);
  if (!call->decision.taken()) {
    if (report::on()) tally_handoff(call->decision.handoff);
    return pmpi_persistent(c, mpi_info, request);
  }
  int rc = call->decision.error;
  if (rc == MPI_SUCCESS) {
    call->info = state->info;
    call->schedule = &schedule_of(*state, c);
    call->comm = state->own;
    call->sequence = state->sequence;
    call->kind = c.kind;
    rc = register_persistent(std::move(call), request);
  }
  if (rc != MPI_SUCCESS) report_error(c, Mode::kPersistent, rc);
  return rc;
}
#endif

}  // namespace nbrcoll
