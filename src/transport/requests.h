// The MPI messages of one call: each request with the engine token it
// stands for, completed all at once (one Waitall, as the MPI's own linear
// algorithm does) or round by round (Waitsome/Testsome). Kept in the call's
// scratch between calls, so a call allocates nothing once its sizes were
// seen. The host and device transports and the host fast path share it.
//
// A request that completes with an error (a truncated receive) is freed at
// once and never waited for again: MPICH frees it in Waitsome and Waitall,
// Open MPI leaves it allocated.
//
// Under NBRCOLL_WATCHDOG each request also records its peer, and before
// each blocking wait the peers whose messages are still outstanding go to
// the watchdog (support/watchdog.h); a blocking wait for all of them is
// then made one completion at a time (Waitany), so that it knows which.
//
// Requests dropped before they completed (cleared or destroyed while some
// were never settled) stay held by the MPI for good: they are counted as
// held handles (report/held_handles.h). A set whose requests are
// persistent and freed by their owner (standing_messages.h) gives them up
// first.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "engine/token.h"
#include "report/held_handles.h"
#include "support/watchdog.h"

namespace nbrcoll {

// Whom a message comes from or goes to: a graph rank (for the watchdog).
struct MessagePeer {
  int rank = -1;
  bool receive = false;
  static MessagePeer from(int r) { return {r, true}; }
  static MessagePeer to(int r) { return {r, false}; }
};

class MpiRequests {
 public:
  MpiRequests() = default;
  MpiRequests(const MpiRequests&) = delete;
  MpiRequests& operator=(const MpiRequests&) = delete;
  ~MpiRequests() { count_dropped(); }
  void clear() {
    count_dropped();
    requests_.clear();
    tokens_.clear();
    peers_.clear();
    pending_.clear();
    settled_ = 0;
  }
  // Pointers into the requests are handed out while posting: no
  // reallocation may happen after this.
  void reserve(std::size_t messages) {
    requests_.reserve(messages);
    tokens_.reserve(messages);
  }
  MPI_Request* add(engine::Token token, MessagePeer peer) {
    tokens_.push_back(token);
    return add_plain(peer);
  }
  // A request without a token, for a run that completes all at once and
  // knows its order (the host fast path): it never asks for tokens, and
  // never mixes add() with this.
  MPI_Request* add_plain(MessagePeer peer) {
    if (watch_) {
      peers_.push_back(peer);
      pending_.push_back(1);
    }
    requests_.push_back(MPI_REQUEST_NULL);
    return &requests_.back();
  }
  // Request i's peer (under the watchdog only; else none).
  [[nodiscard]] MessagePeer peer(std::size_t i) const { return watch_ ? peers_[i] : MessagePeer{}; }
  [[nodiscard]] std::size_t size() const { return requests_.size(); }
  [[nodiscard]] MPI_Request& request(std::size_t i) { return requests_[i]; }
  // The requests from the i-th on (i up to size()).
  [[nodiscard]] const MPI_Request* from(std::size_t i) const { return requests_.data() + i; }
  [[nodiscard]] engine::Token token(std::size_t i) const { return tokens_[i]; }
  [[nodiscard]] const MPI_Status& status(std::size_t i) const { return statuses_[i]; }
  [[nodiscard]] bool settled() const { return settled_ == requests_.size(); }
  // None of the requests is active any more (none left to complete, or
  // each freed by its owner): none counts as dropped.
  void give_up() { settled_ = requests_.size(); }

  // Waitall (Testall unless `block`) of every request: false while some are
  // in flight. Afterwards status(i) is request i's. The first error goes to
  // `first_error` (if none is there yet); a request that failed is freed,
  // one the failed Waitall did not reach is waited for. `persistent`: some
  // request is a persistent one (its error may be in its status only).
  bool complete_all(bool block, int& first_error, bool persistent = false);

  // One round: Waitsome (Testsome when `poll`), then on_done(token, error,
  // status or nullptr) for each request completed. False when nothing more
  // can complete (no active request left, and not polling).
  template <class OnDone>
  bool complete_some(bool poll, int& first_error, OnDone&& on_done);

 private:
  // Which requests a failed Waitsome completed is unknown: one at a time.
  template <class OnDone>
  bool complete_one(OnDone&& on_done);
  // The watchdog's blocking Waitall: Waitany until none is left.
  void wait_all_watched(int& first_error);
  // Tells the watchdog whose messages are still outstanding (before a blocking wait).
  void tell_watchdog() const;
  void completed(std::size_t i) {
    if (watch_) pending_[i] = 0;
  }

  bool watch_ = watchdog_on();
  std::vector<MPI_Request> requests_;
  std::vector<engine::Token> tokens_;
  std::vector<MessagePeer> peers_;  // under the watchdog: each request's peer
  std::vector<char> pending_;       // under the watchdog: each request not yet seen complete
  std::vector<MPI_Status> statuses_;
  std::vector<int> done_;
  std::size_t settled_ = 0;  // requests completed (or freed after an error)

  void count_dropped() const {
    if (settled_ < requests_.size())
      report::note_made(report::Handle::kRequest, static_cast<std::int64_t>(requests_.size() - settled_));
  }
};

// Frees a request that completed with an error (see above).
inline void release_failed(MPI_Request& req) {
  if (req != MPI_REQUEST_NULL) PMPI_Request_free(&req);
  req = MPI_REQUEST_NULL;
}

inline void note_error(int& first_error, int rc) {
  if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
}

template <class OnDone>
bool MpiRequests::complete_one(OnDone&& on_done) {
  int index = MPI_UNDEFINED;
  MPI_Status st;
  if (watch_) tell_watchdog();
  const int rc = PMPI_Waitany(static_cast<int>(requests_.size()), requests_.data(), &index, &st);
  if (index == MPI_UNDEFINED) return false;
  const auto i = static_cast<std::size_t>(index);
  if (rc != MPI_SUCCESS) release_failed(requests_[i]);
  completed(i);
  ++settled_;
  on_done(tokens_[i], rc, rc == MPI_SUCCESS ? &st : nullptr);
  return true;
}

template <class OnDone>
bool MpiRequests::complete_some(bool poll, int& first_error, OnDone&& on_done) {
  const auto n = static_cast<int>(requests_.size());
  done_.resize(requests_.size());
  statuses_.resize(requests_.size());
  int count = 0;
  if (watch_ && !poll) tell_watchdog();
  const int rc = poll ? PMPI_Testsome(n, requests_.data(), &count, done_.data(), statuses_.data())
                      : PMPI_Waitsome(n, requests_.data(), &count, done_.data(), statuses_.data());
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    note_error(first_error, rc);
    return complete_one(on_done);
  }
  if (count == MPI_UNDEFINED) return poll;
  settled_ += static_cast<std::size_t>(count);
  for (int k = 0; k < count; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const auto index = static_cast<std::size_t>(done_[i]);
    const int error = rc == MPI_ERR_IN_STATUS ? statuses_[i].MPI_ERROR : MPI_SUCCESS;
    if (error != MPI_SUCCESS) release_failed(requests_[index]);
    completed(index);
    on_done(tokens_[index], error, &statuses_[i]);
  }
  return true;
}

}  // namespace nbrcoll
