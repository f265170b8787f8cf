// The completion calls, intercepted so that nonblocking nbrcoll calls
// progress while the application waits or tests: with no nbrcoll call in
// flight each is one load and the PMPI_ call. Otherwise a wait becomes a
// loop of "advance every call in flight, test the application's requests"
// (MPI's own wait semantics, request arrays untouched until they complete),
// and a test advances every call once before testing. A wait on the only
// call in flight finishes that call blocking in the MPI first
// (finish_sole_call), so that a lone exchange waits as the MPI's own does.
#include <mpi.h>

#include <array>

#include "call/decision.h"
#include "call/deferred_agreement.h"
#include "call/mpi_progress_hook.h"
#include "call/persistent.h"
#include "call/progress.h"
#include "call/progress_thread.h"
#include "report/run_report.h"
#include "state/late_plans.h"
#include "transport/standing_messages.h"

using nbrcoll::Backoff;
using nbrcoll::calls_in_flight;
using nbrcoll::finish_sole_call;
using nbrcoll::progress_all;

namespace {

// Freeing or cancelling the request of a call in flight is erroneous for a
// collective: the answer (an error, the request left active, the error
// handler called) is the one this MPI gives for its own.
int refuse(bool cancel) {
  const int rc = nbrcoll::active_collective_refusal(cancel);
  PMPI_Comm_call_errhandler(MPI_COMM_WORLD, rc);
  return rc;
}

// The words of every hand-off reason, for the run report.
nbrcoll::report::HandoffNames handoff_names() {
  static const auto names = [] {
    std::array<const char*, nbrcoll::kHandoffCount> n{};
    for (unsigned i = 0; i < n.size(); ++i) n[i] = nbrcoll::handoff_text(static_cast<nbrcoll::Handoff>(i));
    return n;
  }();
  return {names.data(), static_cast<unsigned>(names.size())};
}

// `test` (the MPI's own), after advancing nbrcoll's calls where some are
// in flight; the MPI's progress loop inside it then leaves them alone.
template <class Test>
int advanced_then(Test test) {
  if (!calls_in_flight()) return test();
  const nbrcoll::AdvancingHere here;
  progress_all();
  return test();
}

}  // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const nbrcoll::WaitingInside waiting;
  if (calls_in_flight()) finish_sole_call(1, request);
  for (Backoff b; calls_in_flight(); b.pause()) {
    int flag = 0;
    const int rc = advanced_then([&] { return PMPI_Test(request, &flag, status); });
    if (rc != MPI_SUCCESS || flag != 0) return rc;
  }
  return PMPI_Wait(request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  const nbrcoll::WaitingInside waiting;
  if (calls_in_flight()) finish_sole_call(count, requests);
  for (Backoff b; calls_in_flight(); b.pause()) {
    int flag = 0;
    const int rc = advanced_then([&] { return PMPI_Testall(count, requests, &flag, statuses); });
    if (rc != MPI_SUCCESS || flag != 0) return rc;
  }
  return PMPI_Waitall(count, requests, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  const nbrcoll::WaitingInside waiting;
  for (Backoff b; calls_in_flight(); b.pause()) {
    int flag = 0;
    const int rc = advanced_then([&] { return PMPI_Testany(count, requests, index, &flag, status); });
    if (rc != MPI_SUCCESS || flag != 0) return rc;
  }
  return PMPI_Waitany(count, requests, index, status);
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  const nbrcoll::WaitingInside waiting;
  for (Backoff b; calls_in_flight(); b.pause()) {
    const int rc = advanced_then([&] { return PMPI_Testsome(incount, requests, outcount, indices, statuses); });
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
  }
  return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return advanced_then([&] { return PMPI_Test(request, flag, status); });
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  return advanced_then([&] { return PMPI_Testall(count, requests, flag, statuses); });
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  return advanced_then([&] { return PMPI_Testany(count, requests, index, flag, status); });
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return advanced_then([&] { return PMPI_Testsome(incount, requests, outcount, indices, statuses); });
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return advanced_then([&] { return PMPI_Request_get_status(request, flag, status); });
}

int MPI_Request_free(MPI_Request* request) {
  if (request != nullptr && calls_in_flight() && nbrcoll::in_flight(*request)) return refuse(false);
#if NBRCOLL_PERSISTENT
  if (request != nullptr && nbrcoll::persistent_calls_exist() && nbrcoll::free_persistent(request)) return MPI_SUCCESS;
#endif
  return PMPI_Request_free(request);
}

int MPI_Cancel(MPI_Request* request) {
  if (request != nullptr && calls_in_flight() && nbrcoll::in_flight(*request)) return refuse(true);
  return PMPI_Cancel(request);
}

#if NBRCOLL_PERSISTENT
int MPI_Start(MPI_Request* request) {
  int rc = MPI_SUCCESS;
  if (request != nullptr && nbrcoll::persistent_calls_exist() && nbrcoll::start_persistent(request, rc)) return rc;
  return PMPI_Start(request);
}

// Each request in turn, ours or the MPI's: the same as MPI's own Startall.
int MPI_Startall(int count, MPI_Request requests[]) {
  if (!nbrcoll::persistent_calls_exist()) return PMPI_Startall(count, requests);
  for (int i = 0; i < count; ++i) {
    if (const int rc = MPI_Start(&requests[i]); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}
#endif

// Calls and graph planning still in flight finish before the MPI goes away (their peers may
// need them even if this rank never waits for them); then the run report,
// if NBRCOLL_REPORT asks for one (gathered to world rank 0).
int MPI_Finalize() {
  nbrcoll::drain();
  nbrcoll::finish_late_planning();
  nbrcoll::finish_deferred_agreements();
  nbrcoll::stop_progress_thread();
  nbrcoll::unhook_mpi_progress();
  // The report first: the handles it counts are those the application's
  // run left held, the kept messages of communicators never freed among them.
  nbrcoll::report::finish(handoff_names());
  nbrcoll::StandingMessages::release_all();  // held by communicators never freed
  return PMPI_Finalize();
}

}  // extern "C"
