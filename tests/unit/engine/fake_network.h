// A whole communicator's messages in one process, for running the schedule
// engine without MPI: every rank's engine posts through a FakeTransport
// into one FakeNetwork, which matches sends with receives as MPI does
// (per sender, receiver and tag, in posting order) and delivers them in a
// random order. A receive larger than its message gets the message's bytes
// (a short count, as MPI reports it); a message larger than its receive is
// truncated and fails the receive.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "engine/engine.h"
#include "engine/token.h"

namespace nbrcoll::engine::testing {

inline constexpr int kFakeErrShort = 101;      // what the engine reports for a short fragment
inline constexpr int kFakeErrTruncate = 102;   // ... and a bundle piece larger than its slot
inline constexpr int kFakeErrTruncated = 103;  // a message larger than its receive (the network's)

struct Completion {
  Token token;
  int error = 0;
  std::uint64_t bytes = 0;  // received bytes (receives only)
};

class FakeNetwork {
 public:
  explicit FakeNetwork(int ranks, std::uint64_t seed) : completed_(static_cast<std::size_t>(ranks)), rng_(seed) {}

  void post_recv(int rank, Token token, int peer, int tag, char* data, std::uint64_t bytes) {
    channels_[{peer, rank, tag}].recvs.push_back({rank, token, data, bytes});
  }
  void post_send(int rank, Token token, int peer, int tag, const char* data, std::uint64_t bytes) {
    Message m{rank, token, std::vector<char>(bytes)};
    if (bytes > 0) std::memcpy(m.bytes.data(), data, bytes);  // eager: the sender's buffer may change once it completes
    channels_[{rank, peer, tag}].sends.push_back(std::move(m));
  }

  // Up to `most` matching pairs, each of another channel, chosen at random
  // among the channels that have one: delivered, and both ends'
  // completions queued. False when none is ready.
  bool deliver_some(std::size_t most) {
    ready_.clear();
    for (auto& [key, c] : channels_) {
      if (!c.sends.empty() && !c.recvs.empty()) ready_.push_back(&c);
    }
    if (ready_.empty()) return false;
    std::shuffle(ready_.begin(), ready_.end(), rng_);
    for (std::size_t k = 0; k < ready_.size() && k < most; ++k) deliver(*ready_[k]);
    return true;
  }
  // The completions of `rank` not yet reported, in a random order.
  std::vector<Completion> take_completed(int rank) {
    std::vector<Completion> out = std::move(completed_[static_cast<std::size_t>(rank)]);
    completed_[static_cast<std::size_t>(rank)].clear();
    std::shuffle(out.begin(), out.end(), rng_);
    return out;
  }
  [[nodiscard]] bool has_completed(int rank) const { return !completed_[static_cast<std::size_t>(rank)].empty(); }
  // Messages and receives posted that never matched (after the run: a bug).
  [[nodiscard]] std::size_t unmatched() const {
    std::size_t n = 0;
    for (const auto& [key, c] : channels_) n += c.sends.size() + c.recvs.size();
    return n;
  }
  std::mt19937_64& rng() { return rng_; }

 private:
  struct Message {
    int rank;
    Token token;
    std::vector<char> bytes;
  };
  struct Recv {
    int rank;
    Token token;
    char* data;
    std::uint64_t bytes;
  };
  struct Channel {
    std::deque<Message> sends;
    std::deque<Recv> recvs;
  };
  void deliver(Channel& c) {
    Message m = std::move(c.sends.front());
    c.sends.pop_front();
    const Recv r = c.recvs.front();
    c.recvs.pop_front();
    const std::uint64_t n = std::min<std::uint64_t>(m.bytes.size(), r.bytes);
    if (n > 0) std::memcpy(r.data, m.bytes.data(), n);
    const int error = m.bytes.size() > r.bytes ? kFakeErrTruncated : 0;
    completed_[static_cast<std::size_t>(r.rank)].push_back({r.token, error, n});
    completed_[static_cast<std::size_t>(m.rank)].push_back({m.token, 0, 0});
  }

  std::map<std::tuple<int, int, int>, Channel> channels_;  // (sender, receiver, tag)
  std::vector<Channel*> ready_;
  std::vector<std::vector<Completion>> completed_;
  std::mt19937_64 rng_;
};

// One rank's transport on the fake network. It never blocks: the test
// drives every rank's engine with step(false) between deliveries.
class FakeTransport {
 public:
  static constexpr int kErrShort = kFakeErrShort;
  static constexpr int kErrTruncate = kFakeErrTruncate;
  static constexpr bool kEveryArrival = false;

  FakeTransport(int rank, const algos::Plan& plan, FakeNetwork& net) : rank_(rank), plan_(plan), net_(net) {}

  template <class Engine>
  void prepare(Engine& /*engine*/, std::size_t /*messages*/) {
    outstanding_ = 0;
  }
  int post_recv(std::size_t r, char* data, std::uint64_t bytes) {
    const algos::Recv& recv = plan_.recvs[r];
    return post_bytes_recv({Op::kRecv, static_cast<int>(r)}, recv.peer, recv.tag, data, bytes);
  }
  int post_send(std::size_t s, const char* data, std::uint64_t bytes, bool lost) {
    const algos::Send& send = plan_.sends[s];
    return post_bytes_send({Op::kSend, static_cast<int>(s)}, send.peer, send.tag, data, lost ? 0 : bytes);
  }
  int post_bytes_recv(Token token, int peer, int tag, char* data, std::uint64_t bytes) {
    ++outstanding_;
    net_.post_recv(rank_, token, peer, tag, data, bytes);
    return 0;
  }
  int post_bytes_send(Token token, int peer, int tag, const char* data, std::uint64_t bytes) {
    ++outstanding_;
    net_.post_send(rank_, token, peer, tag, data, bytes);
    return 0;
  }
  // All at once: done when every posted message completed; then each
  // receive's byte count, in a random order.
  template <class Engine>
  bool complete_all(bool /*block*/, Engine& engine) {
    for (const Completion& c : net_.take_completed(rank_)) {
      --outstanding_;
      engine.note(c.error);
      if (c.token.op == Op::kRecv) done_recvs_.push_back(c);
    }
    if (outstanding_ != 0) return false;
    if (engine.error() == 0) {
      for (const Completion& c : done_recvs_) {
        const auto r = static_cast<std::size_t>(c.token.index);
        engine.arrived(r, engine.came_short(r, c.bytes));
      }
    }
    done_recvs_.clear();
    return true;
  }
  // The completions that came, in a random order.
  template <class Engine>
  bool progress(bool /*block*/, Engine& engine) {
    for (const Completion& c : net_.take_completed(rank_)) {
      --outstanding_;
      engine.note(c.error);
      const auto i = static_cast<std::size_t>(c.token.index);
      switch (c.token.op) {
        case Op::kRecv:
          engine.arrived(i, c.error != 0 || engine.came_short(i, c.bytes));
          break;
        case Op::kBundleHead:
          engine.bundle_head(i, c.error);
          break;
        case Op::kBundleRest:
          engine.bundle_rest(i, c.error);
          break;
        default:
          break;
      }
    }
    return outstanding_ != 0;
  }
  [[nodiscard]] bool settled() const { return outstanding_ == 0; }
  void give_up() { outstanding_ = 0; }
  template <class Engine>
  void after_arrival(std::size_t /*r*/, Engine& /*engine*/) {}
  static int copy_local(char* to, const char* from, std::uint64_t bytes, bool /*from_send_side*/) {
    std::memmove(to, from, bytes);
    return 0;
  }

 private:
  int rank_;
  const algos::Plan& plan_;
  FakeNetwork& net_;
  std::size_t outstanding_ = 0;
  std::vector<Completion> done_recvs_;
};

}  // namespace nbrcoll::engine::testing
