#include "transport/requests.h"

namespace nbrcoll {

bool MpiRequests::complete_all(bool block, int& first_error) {
  statuses_.resize(requests_.size());
  const int n = static_cast<int>(requests_.size());
  int flag = 1;
  const int rc = block ? PMPI_Waitall(n, requests_.data(), statuses_.data())
                       : PMPI_Testall(n, requests_.data(), &flag, statuses_.data());
  if (flag == 0 && rc == MPI_SUCCESS) return false;
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

}  // namespace nbrcoll
