#include "transport/standing_messages.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "report/held_handles.h"

namespace nbrcoll {

namespace {

// The sets built, so that MPI_Finalize frees what the application's
// unfreed communicators still hold. Touched only when a set is built or
// freed, never on a call that starts one.
std::mutex& registry_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<StandingMessages*>& registry() {
  static auto* r = new std::vector<StandingMessages*>;
  return *r;
}

bool mpi_up() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  return finalized == 0;
}

}  // namespace

StandingMessages::~StandingMessages() {
  release();
}

StandingMessages::Use StandingMessages::use_for(const StandingKey& key) {
  if (built_ && key_ == key) return Use::kStart;
  if (seen_ == key) return !declined_ && ++seen_runs_ > kRunsBeforeKeeping ? Use::kKeep : Use::kPost;
  seen_ = key;
  seen_runs_ = 1;
  declined_ = false;
  return Use::kPost;
}

MpiRequests& StandingMessages::rebuild(const StandingKey& key) {
  release();
  key_ = key;
  built_ = true;
  const std::lock_guard<std::mutex> lock(registry_mutex());
  registry().push_back(this);
  return requests_;
}

int StandingMessages::start() {
  if (requests_.size() == 0) return MPI_SUCCESS;
  return PMPI_Startall(static_cast<int>(requests_.size()), &requests_.request(0));
}

void StandingMessages::release_after(const MPI_Request* copies) {
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (copies[i] != MPI_REQUEST_NULL || requests_.request(i) == MPI_REQUEST_NULL) continue;
    requests_.request(i) = MPI_REQUEST_NULL;
    report::note_freed(report::Handle::kRequest);  // freed where it failed (requests.h)
  }
  release();
}

void StandingMessages::release() {
  seen_ = {};
  seen_runs_ = 0;
  declined_ = false;
  if (!built_) return;
  built_ = false;
  {
    const std::lock_guard<std::mutex> lock(registry_mutex());
    std::erase(registry(), this);
  }
  if (mpi_up()) {
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      MPI_Request& r = requests_.request(i);
      if (r != MPI_REQUEST_NULL && PMPI_Request_free(&r) == MPI_SUCCESS) report::note_freed(report::Handle::kRequest);
    }
  }
  requests_.give_up();  // freed above, not completed: none dropped
  requests_.clear();
}

void StandingMessages::release_all() {
  std::vector<StandingMessages*> sets;
  {
    const std::lock_guard<std::mutex> lock(registry_mutex());
    sets = registry();
  }
  for (StandingMessages* s : sets) s->release();
}

}  // namespace nbrcoll
