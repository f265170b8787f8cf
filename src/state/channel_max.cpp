#include "state/channel_max.h"

#include <algorithm>

#include "algos/dissemination.h"
#include "state/graph_setup.h"  // comm_rank_of

namespace nbrcoll {

ChannelMax::~ChannelMax() {
  int finalized = 1;
  PMPI_Finalized(&finalized);
  if (started_ && !finished_ && !finalized) wait();
}

int ChannelMax::start(MPI_Comm channel, int rank, int size, const std::vector<int>* comm_rank, int tag,
                      std::vector<std::int64_t>* terms) {
  comm_ = channel;
  rank_ = rank;
  size_ = size;
  tag_ = tag;
  comm_rank_ = comm_rank;
  terms_ = terms;
  rounds_ = algos::dissemination_rounds(size);
  started_ = true;
  incoming_.assign(terms->size(), 0);
  outgoing_.resize(static_cast<std::size_t>(rounds_));
  sends_.reserve(static_cast<std::size_t>(rounds_));
  if (rounds_ == 0) return MPI_SUCCESS;
  error_ = post_round();
  return error_;
}

// This round's receive, then its send of what this rank holds now.
int ChannelMax::post_round() {
  const algos::RoundPeers peers = algos::dissemination_peers(size_, rank_, round_);
  const int n = static_cast<int>(terms_->size());
  int rc = PMPI_Irecv(incoming_.data(), n, MPI_INT64_T, comm_rank_of(comm_rank_, peers.from), tag_, comm_, &recv_);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<std::int64_t>& out = outgoing_[static_cast<std::size_t>(round_)];
  out = *terms_;
  sends_.push_back(MPI_REQUEST_NULL);
  rc = PMPI_Isend(out.data(), n, MPI_INT64_T, comm_rank_of(comm_rank_, peers.to), tag_, comm_, &sends_.back());
  return rc;
}

// Not blocking, it looks at the awaited round's message once and never at a
// receive it has just posted: under Open MPI a test that finds nothing
// runs its progress engine, which on shared cores yields the core
// (0.2-4 ms a test with 8 ranks to a core), where a request that the
// call's own waits have completed is read without it.
int ChannelMax::advance(bool block) {
  if (finished_ || !started_) return error_;
  while (error_ == MPI_SUCCESS && round_ < rounds_) {
    int arrived = 1;
    error_ = block ? PMPI_Wait(&recv_, MPI_STATUS_IGNORE) : PMPI_Test(&recv_, &arrived, MPI_STATUS_IGNORE);
    if (error_ != MPI_SUCCESS || arrived == 0) break;
    std::transform(terms_->begin(), terms_->end(), incoming_.begin(), terms_->begin(),
                   [](std::int64_t a, std::int64_t b) { return std::max(a, b); });
    if (++round_ < rounds_) error_ = post_round();
    if (!block) break;  // never a look at the receive just posted
  }
  if (error_ == MPI_SUCCESS && round_ == rounds_) {
    int sent = 1;
    const int n = static_cast<int>(sends_.size());
    error_ = block ? PMPI_Waitall(n, sends_.data(), MPI_STATUSES_IGNORE)
                   : PMPI_Testall(n, sends_.data(), &sent, MPI_STATUSES_IGNORE);
    finished_ = error_ == MPI_SUCCESS && sent != 0;
  }
  // A failed rank stops here: its peers cannot learn it (as with a failed
  // collective), and MPI's default error handler has stopped the job.
  if (error_ != MPI_SUCCESS) finished_ = true;
  return error_;
}

int ChannelMax::poll() {
  return advance(false);
}

int ChannelMax::wait() {
  return advance(true);
}

}  // namespace nbrcoll
