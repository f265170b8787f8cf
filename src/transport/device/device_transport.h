// The device transport: the engine's transport in a process with a GPU
// runtime. Each fragment's sender picks its route (route.h) from where its
// bytes lie: the bytes by MPI (host memory, or a GPU-aware MPI), the bytes
// staged through pinned host memory, an IPC note (a peer on this node
// copies from this rank's memory with nbrcoll's copy kernel and acks), or a
// missing note. So every receive is posted twice, data and note, and the
// twin that does not come is cancelled; an IPC copy's end counts as its
// fragment's arrival. Host-only processes never build one (HostTransport).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "algos/schedule.h"
#include "engine/token.h"
#include "transport/channel.h"
#include "transport/device/device_call.h"
#include "transport/device/route.h"
#include "transport/requests.h"

namespace nbrcoll {

namespace engine {
template <class Transport>
class Engine;
}  // namespace engine

// The device transport's vectors, kept in the call's scratch between calls.
struct DeviceScratch {
  std::vector<std::uint64_t> recv_stage;  // per fragment: its offset in the staging area
  std::vector<std::uint64_t> send_stage;
  std::vector<IpcDescriptor> recv_desc;  // per receive: its note, if one came
  std::vector<IpcDescriptor> send_desc;  // per send: its note, if it sends one
  // Per receive: the indices of its data and note requests, and whether one
  // of them came (the other is then cancelled).
  std::vector<std::size_t> data_request;
  std::vector<std::size_t> note_request;
  std::vector<char> taken;
  // Per peer rank: receives from it still to arrive, whether it sent an IPC
  // note (then it waits for this rank's ack once all arrived), and whether
  // this rank waits for its ack.
  std::vector<int> left_from;
  std::vector<char> read_from;
  std::vector<char> ack_posted;
  std::vector<int> copied;
  std::vector<int> failed_copies;
};

class DeviceTransport {
 public:
  static constexpr int kErrShort = MPI_ERR_OTHER;
  static constexpr int kErrTruncate = MPI_ERR_TRUNCATE;
  static constexpr bool kEveryArrival = true;
  using Engine = engine::Engine<DeviceTransport>;

  // `device`: nullptr where no backend is loaded (device memory nbrcoll
  // does not move). Everything given must outlive the transport.
  DeviceTransport(const algos::Schedule& schedule, const Channel& channel, const DeviceRouting& routing,
                  DeviceCall* device, MpiRequests& requests, DeviceScratch& scratch)
      : schedule_(schedule),
        plan_(schedule.mixed.plan),
        channel_(channel),
        routing_(routing),
        device_(device),
        requests_(requests),
        scratch_(scratch) {}

  void prepare(Engine& engine, std::size_t messages);
  int post_recv(std::size_t r, char* data, std::uint64_t bytes);
  int post_send(std::size_t s, const char* data, std::uint64_t bytes, bool lost);
  int post_bytes_recv(engine::Token token, int peer, int tag, char* data, std::uint64_t bytes);
  int post_bytes_send(engine::Token token, int peer, int tag, const char* data, std::uint64_t bytes);
  bool progress(bool block, Engine& engine);
  [[nodiscard]] bool settled() const {
    return requests_.settled() && (device_ == nullptr || !device_->copies_running());
  }
  void give_up() { requests_.give_up(); }
  void after_arrival(std::size_t r, Engine& engine);
  int copy_local(char* to, const char* from, std::uint64_t bytes, bool from_send_side);

 private:
  // The device transport's own messages (engine::Token::op).
  static constexpr engine::Op kNote = engine::Op::kTransportOp;
  static constexpr auto kAckRecv = static_cast<engine::Op>(static_cast<int>(engine::Op::kTransportOp) + 1);
  static constexpr auto kAckSend = static_cast<engine::Op>(static_cast<int>(engine::Op::kTransportOp) + 2);

  // A receive whose bytes, if they come as bytes, land in pinned staging
  // first: device slots and a MPI that cannot read device memory.
  [[nodiscard]] bool recv_staged() const { return !broken_ && routing_.recv == Memory::kDevice && !routing_.gpu_aware; }
  // The route of send s before anything fails: from where its bytes lie.
  [[nodiscard]] Route planned_route(std::size_t s) const;
  int send_note(std::size_t s, Route route, const char* data, std::uint64_t bytes);
  bool take(std::size_t r, engine::Op came, Engine& engine);
  void completed(engine::Token t, int error, const MPI_Status* status, Engine& engine);
  void on_data(std::size_t r, int error, const MPI_Status* status, Engine& engine);
  void on_note(std::size_t r, int error, Engine& engine);
  int device_failed(int rc, const char* what) const;

  const algos::Schedule& schedule_;
  const algos::Plan& plan_;
  Channel channel_;
  const DeviceRouting& routing_;
  DeviceCall* device_;
  MpiRequests& requests_;
  DeviceScratch& scratch_;
  // This rank cannot move bytes in this call (no staging): its sends are
  // missing notes, its receives take nothing.
  bool broken_ = false;
  bool hollow_ = false;
};

}  // namespace nbrcoll
