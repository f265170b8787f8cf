// A MAX reduction of a vector of int64 over a graph's ranks, by
// point-to-point messages on the graph handle's channel (the dissemination
// rounds of algos/dissemination.h), started at one call and advanced by
// tests at later ones: the agreement of a graph that plans late
// (late_plans.cpp). Not a nonblocking allreduce on the graph communicator:
// that would be a collective on the application's communicator, under
// MPICH a pending request that defers the communicator's attribute delete
// callback (a graph freed before its planning call would leak its state),
// and under Open MPI one more of the communicator's nonblocking-collective
// tags (docs/KNOWN-ISSUES.md). Every rank of the graph must start it, with
// vectors of one length, under one tag no other message between these
// ranks on the channel uses after it (the channel's node lists go before).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace nbrcoll {

class ChannelMax {
 public:
  ChannelMax() = default;
  ChannelMax(const ChannelMax&) = delete;
  ChannelMax& operator=(const ChannelMax&) = delete;
  ~ChannelMax();  // completes what is in flight (every peer started too)

  // Starts reducing `*terms` (kept by the caller until done) over `size`
  // ranks; `rank` is this one's graph rank, `comm_rank` maps graph ranks to
  // the channel's (null: the same). The first round is posted here.
  int start(MPI_Comm channel, int rank, int size, const std::vector<int>* comm_rank, int tag,
            std::vector<std::int64_t>* terms);
  // One look, without waiting: combines the awaited round's message if it
  // has arrived and posts the next round.
  int poll();
  // Completes: `*terms` then holds the maximum over every rank's.
  int wait();
  // Whether it completed (or failed) by a poll or wait.
  [[nodiscard]] bool finished() const { return finished_; }

 private:
  int advance(bool block);
  int post_round();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int tag_ = 0;
  int rounds_ = 0;
  int round_ = 0;  // the round whose message is awaited
  bool started_ = false;
  bool finished_ = false;
  int error_ = MPI_SUCCESS;
  const std::vector<int>* comm_rank_ = nullptr;
  std::vector<std::int64_t>* terms_ = nullptr;
  std::vector<std::int64_t> incoming_;
  std::vector<std::vector<std::int64_t>> outgoing_;  // one per round, alive until its send completes
  std::vector<MPI_Request> sends_;
  MPI_Request recv_ = MPI_REQUEST_NULL;
};

}  // namespace nbrcoll
