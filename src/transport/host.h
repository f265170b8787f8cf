// The host transport: every fragment and bundle message is one
// PMPI_Isend / PMPI_Irecv on the call's channel, completed by the MPI. A
// host call pays nothing for the device path: the engine is a template on
// its transport, and this one's calls are inline.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>

#include "algos/mixed_plan.h"
#include "engine/token.h"
#include "transport/byte_message.h"
#include "transport/channel.h"
#include "transport/requests.h"
#include "transport/status_bytes.h"

namespace nbrcoll {

class HostTransport {
 public:
  static constexpr int kErrShort = MPI_ERR_OTHER;
  static constexpr int kErrTruncate = MPI_ERR_TRUNCATE;
  static constexpr bool kEveryArrival = false;

  HostTransport(const algos::MixedPlan& mixed, const Channel& channel, MpiRequests& requests)
      : mixed_(mixed), channel_(channel), requests_(requests) {}

  template <class Engine>
  void prepare(Engine& /*engine*/, std::size_t messages) {
    requests_.clear();
    requests_.reserve(messages);
  }
  int post_recv(std::size_t r, char* data, std::uint64_t bytes) {
    const algos::Recv& recv = mixed_.plan.recvs[r];
    return irecv({engine::Op::kRecv, static_cast<int>(r)}, recv.peer,
                 channel_.fragment_tag(recv.tag, mixed_.recv_variant[r]), data, bytes);
  }
  // A lost fragment (nothing whole to pass on) goes as an empty message.
  int post_send(std::size_t s, const char* data, std::uint64_t bytes, bool lost) {
    const algos::Send& send = mixed_.plan.sends[s];
    return isend({engine::Op::kSend, static_cast<int>(s)}, send.peer,
                 channel_.fragment_tag(send.tag, mixed_.send_variant[s]), data, lost ? 0 : bytes);
  }
  int post_bytes_recv(engine::Token token, int peer, int tag, char* data, std::uint64_t bytes) {
    return irecv(token, peer, tag + channel_.tag_offset, data, bytes);
  }
  int post_bytes_send(engine::Token token, int peer, int tag, const char* data, std::uint64_t bytes) {
    return isend(token, peer, tag + channel_.tag_offset, data, bytes);
  }

  // Nothing forwarded: one Waitall (Testall unless `block`), then every
  // receive's byte count.
  template <class Engine>
  bool complete_all(bool block, Engine& engine) {
    int error = MPI_SUCCESS;
    if (!requests_.complete_all(block, error)) return false;
    engine.note(error);
    if (error != MPI_SUCCESS) return true;  // the call fails already
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      const engine::Token t = requests_.token(i);
      if (t.op != engine::Op::kRecv) continue;
      const auto r = static_cast<std::size_t>(t.index);
      engine.arrived(r, engine.came_short(r, status_bytes(requests_.status(i))));
    }
    return true;
  }
  // One round of completions: Waitsome (Testsome unless `block`).
  template <class Engine>
  bool progress(bool block, Engine& engine) {
    int error = MPI_SUCCESS;
    const bool more = requests_.complete_some(
        !block, error, [&](engine::Token t, int e, const MPI_Status* st) { completed(t, e, st, engine); });
    engine.note(error);
    return more;
  }
  [[nodiscard]] bool settled() const { return requests_.settled(); }
  void give_up() { requests_.give_up(); }
  template <class Engine>
  void after_arrival(std::size_t /*r*/, Engine& /*engine*/) {}
  static int copy_local(char* to, const char* from, std::uint64_t bytes, bool /*from_send_side*/) {
    std::memmove(to, from, bytes);
    return MPI_SUCCESS;
  }

 private:
  template <class Engine>
  static void completed(engine::Token t, int error, const MPI_Status* status, Engine& engine) {
    engine.note(error);
    const auto i = static_cast<std::size_t>(t.index);
    switch (t.op) {
      case engine::Op::kRecv:
        engine.arrived(i, error != MPI_SUCCESS || (status != nullptr && engine.came_short(i, status_bytes(*status))));
        break;
      case engine::Op::kBundleHead:
        engine.bundle_head(i, error);
        break;
      case engine::Op::kBundleRest:
        engine.bundle_rest(i, error);
        break;
      default:
        break;
    }
  }

  // `tag`: the message's tag on the channel's communicator.
  int irecv(engine::Token token, int peer, int tag, char* data, std::uint64_t bytes) {
    const ByteMessage m(bytes);
    return PMPI_Irecv(data, m.count(), m.type(), channel_.rank(peer), tag, channel_.comm,
                      requests_.add(token, MessagePeer::from(peer)));
  }
  int isend(engine::Token token, int peer, int tag, const char* data, std::uint64_t bytes) {
    const ByteMessage m(bytes);
    return PMPI_Isend(data, m.count(), m.type(), channel_.rank(peer), tag, channel_.comm,
                      requests_.add(token, MessagePeer::to(peer)));
  }

  const algos::MixedPlan& mixed_;
  Channel channel_;
  MpiRequests& requests_;
};

}  // namespace nbrcoll
