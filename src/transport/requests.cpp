#include "transport/requests.h"

#include <algorithm>

namespace nbrcoll {

bool MpiRequests::complete_all(bool block, int& first_error, bool persistent) {
  statuses_.resize(requests_.size());
  if (block && watch_) {
    wait_all_watched(first_error);
    return true;
  }
  const int n = static_cast<int>(requests_.size());
  int flag = 1;
  // Open MPI 4.1's Testall and Waitall report a persistent request's error
  // (a kept message's truncation) only in its status, returning MPI_SUCCESS:
  // the statuses start as successes (an MPI that reports no error leaves
  // them so), and one that is not counts as MPI_ERR_IN_STATUS. (Testall
  // always, as before persistent requests were told apart.)
  const bool read_statuses = persistent || !block;
  if (read_statuses) {
    for (MPI_Status& st : statuses_) st.MPI_ERROR = MPI_SUCCESS;
  }
  int rc = block ? PMPI_Waitall(n, requests_.data(), statuses_.data())
                 : PMPI_Testall(n, requests_.data(), &flag, statuses_.data());
  if (flag == 0 && rc == MPI_SUCCESS) return false;
  if (rc == MPI_SUCCESS && read_statuses &&
      std::any_of(statuses_.begin(), statuses_.end(), [](const MPI_Status& st) { return st.MPI_ERROR != MPI_SUCCESS; }))
    rc = MPI_ERR_IN_STATUS;
  if (rc == MPI_ERR_IN_STATUS) {
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      const int error = statuses_[i].MPI_ERROR;
      if (error == MPI_ERR_PENDING) {
        note_error(first_error, PMPI_Wait(&requests_[i], MPI_STATUS_IGNORE));  // not reached by the failed Waitall
      } else if (error != MPI_SUCCESS) {
        note_error(first_error, error);
        release_failed(requests_[i]);
      }
    }
  } else {
    note_error(first_error, rc);
  }
  settled_ = requests_.size();
  return true;
}

// As the failed Waitall above: each failed request freed, the first error kept.
void MpiRequests::wait_all_watched(int& first_error) {
  for (;;) {
    tell_watchdog();
    int index = MPI_UNDEFINED;
    MPI_Status st;
    const int rc = PMPI_Waitany(static_cast<int>(requests_.size()), requests_.data(), &index, &st);
    if (index == MPI_UNDEFINED) {
      note_error(first_error, rc);
      break;
    }
    const auto i = static_cast<std::size_t>(index);
    statuses_[i] = st;
    completed(i);
    if (rc != MPI_SUCCESS) {
      note_error(first_error, rc);
      release_failed(requests_[i]);
    }
  }
  settled_ = requests_.size();
}

void MpiRequests::tell_watchdog() const {
  std::vector<int> from;
  std::vector<int> to;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i] != 0) (peers_[i].receive ? from : to).push_back(peers_[i].rank);
  }
  watchdog_waits_for(from, to);
}

}  // namespace nbrcoll
