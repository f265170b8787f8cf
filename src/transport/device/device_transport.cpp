#include "transport/device/device_transport.h"

#include <algorithm>
#include <cstring>

#include "engine/engine.h"
#include "support/log.h"
#include "transport/byte_message.h"
#include "transport/status_bytes.h"

namespace nbrcoll {

using engine::Op;

// A device runtime call failed: one warning line, and the call fails.
int DeviceTransport::device_failed(int rc, const char* what) const {
  if (rc == 0) return MPI_SUCCESS;
  log(LogLevel::kWarn, "device %s failed (%d: %s)", what, rc, device_->last_error());
  return MPI_ERR_OTHER;
}

Route DeviceTransport::planned_route(std::size_t s) const {
  const algos::Send& send = plan_.sends[s];
  const bool own = send.out_edge >= 0 || send.slot < 0;
  return routing_.route(own ? routing_.send : routing_.recv, own ? routing_.send_exportable : routing_.recv_exportable,
                        schedule_.send_on_node[s]);
}

void DeviceTransport::prepare(Engine& engine, std::size_t messages) {
  hollow_ = engine.blocks().hollow;
  broken_ = false;
  const engine::EngineScratch& ranges = engine.scratch();
  const std::size_t nr = plan_.recvs.size();
  const std::size_t ns = plan_.sends.size();
  scratch_.recv_stage.assign(nr, 0);
  scratch_.send_stage.assign(ns, 0);
  scratch_.copied.clear();
  scratch_.failed_copies.clear();
  std::uint64_t staged = 0;
  for (const int r : engine.active_recvs()) {
    const auto i = static_cast<std::size_t>(r);
    scratch_.recv_stage[i] = staged;
    if (recv_staged()) staged += ranges.recv_range[i].size();
  }
  for (const int s : engine.active_sends()) {
    const auto i = static_cast<std::size_t>(s);
    scratch_.send_stage[i] = staged;
    if (planned_route(i) == Route::kMpiStaged) staged += ranges.send_range[i].size();
  }
  if (staged > 0) {
    if (const int rc = device_->reserve_staging(staged); rc != 0) {
      // Still takes part, moving no bytes: its peers learn it from its notes.
      engine.note(device_failed(rc, "staging allocation"));
      broken_ = true;
    }
  }
  scratch_.recv_desc.assign(nr, {});
  scratch_.send_desc.assign(ns, {});
  scratch_.data_request.assign(nr, 0);
  scratch_.note_request.assign(nr, 0);
  scratch_.taken.assign(nr, 0);
  const std::size_t ranks = routing_.process_of->size();
  scratch_.left_from.assign(ranks, 0);
  scratch_.read_from.assign(ranks, 0);
  scratch_.ack_posted.assign(ranks, 0);
  for (const int r : engine.active_recvs())
    ++scratch_.left_from[static_cast<std::size_t>(plan_.recvs[static_cast<std::size_t>(r)].peer)];
  requests_.clear();
  requests_.reserve(messages + nr + 2 * ranks);  // a note per receive, at most one ack each way per peer
}

int DeviceTransport::post_bytes_recv(engine::Token token, int peer, int tag, char* data, std::uint64_t bytes) {
  const ByteMessage m(bytes);
  return PMPI_Irecv(data, m.count(), m.type(), channel_.rank(peer), tag + channel_.tag_offset, channel_.comm,
                    requests_.add(token, MessagePeer::from(peer)));
}

int DeviceTransport::post_bytes_send(engine::Token token, int peer, int tag, const char* data, std::uint64_t bytes) {
  const ByteMessage m(bytes);
  return PMPI_Isend(data, m.count(), m.type(), channel_.rank(peer), tag + channel_.tag_offset, channel_.comm,
                    requests_.add(token, MessagePeer::to(peer)));
}

// The data receive (into its slot, or staging) and the note receive.
int DeviceTransport::post_recv(std::size_t r, char* data, std::uint64_t bytes) {
  const algos::Recv& recv = plan_.recvs[r];
  if (broken_) {
    data = nullptr;
    bytes = 0;
  } else if (recv_staged()) {
    data = device_->staging() + scratch_.recv_stage[r];
  }
  scratch_.data_request[r] = requests_.size();
  int rc = post_bytes_recv({Op::kRecv, static_cast<int>(r)}, recv.peer, recv.tag, data, bytes);
  scratch_.note_request[r] = requests_.size();
  const int note = PMPI_Irecv(&scratch_.recv_desc[r], sizeof(IpcDescriptor), MPI_BYTE, channel_.rank(recv.peer),
                              recv.tag + channel_.tag_offset + routing_.note_shift, channel_.comm,
                              requests_.add({kNote, static_cast<int>(r)}, MessagePeer::from(recv.peer)));
  if (rc == MPI_SUCCESS) rc = note;
  return rc;
}

int DeviceTransport::post_send(std::size_t s, const char* data, std::uint64_t bytes, bool lost) {
  const algos::Send& send = plan_.sends[s];
  Route route = planned_route(s);
  int rc = MPI_SUCCESS;
  if (lost || broken_) {
    route = Route::kMissing;
  } else if (bytes == 0) {
    route = Route::kMpi;  // nothing to stage or to read: an empty message
  }
  if (route == Route::kMpiStaged) {
    char* stage = device_->staging() + scratch_.send_stage[s];
    if (const int copied = device_->to_host(stage, data, bytes); copied != 0) {
      rc = device_failed(copied, "copy to host");
      route = Route::kMissing;
    } else {
      data = stage;
    }
  }
  if (route == Route::kMpi || route == Route::kMpiStaged) {
    const int posted = post_bytes_send({Op::kSend, static_cast<int>(s)}, send.peer, send.tag, data, bytes);
    return rc != MPI_SUCCESS ? rc : posted;
  }
  const int noted = send_note(s, route, data, bytes);
  return rc != MPI_SUCCESS ? rc : noted;
}

// A note instead of the bytes: where to read them (IPC), or that they are missing.
int DeviceTransport::send_note(std::size_t s, Route route, const char* data, std::uint64_t bytes) {
  const algos::Send& send = plan_.sends[s];
  IpcDescriptor& d = scratch_.send_desc[s];
  d = IpcDescriptor{};
  d.bytes = bytes;
  int rc = MPI_SUCCESS;
  if (route == Route::kIpc) {
    if (const int described = device_->describe(data, d); described != 0) {
      rc = device_failed(described, "IPC export");
      route = Route::kMissing;
    }
  }
  d.missing = route == Route::kMissing ? 1 : 0;
  const auto peer = static_cast<std::size_t>(send.peer);
  if (route == Route::kIpc && scratch_.ack_posted[peer] == 0) {
    // The peer reads this rank's memory: this call ends only after its ack.
    scratch_.ack_posted[peer] = 1;
    note_error(rc, PMPI_Irecv(nullptr, 0, MPI_BYTE, channel_.rank(send.peer), routing_.ack_tag, channel_.comm,
                              requests_.add({kAckRecv, send.peer}, MessagePeer::from(send.peer))));
  }
  note_error(rc, PMPI_Isend(&d, sizeof(IpcDescriptor), MPI_BYTE, channel_.rank(send.peer),
                            send.tag + channel_.tag_offset + routing_.note_shift, channel_.comm,
                            requests_.add({Op::kSend, static_cast<int>(s)}, MessagePeer::to(send.peer))));
  return rc;
}

// Receive r's data or note came (`came`). True the first time; the other
// request is then cancelled (its sender never sends it), and its
// completion, when the MPI reports it, is ignored.
bool DeviceTransport::take(std::size_t r, Op came, Engine& engine) {
  if (scratch_.taken[r] != 0) return false;
  scratch_.taken[r] = 1;
  MPI_Request& other = requests_.request(came == Op::kRecv ? scratch_.note_request[r] : scratch_.data_request[r]);
  if (other != MPI_REQUEST_NULL) engine.note(PMPI_Cancel(&other));
  return true;
}

// Receive r's bytes came (in place, or in staging).
void DeviceTransport::on_data(std::size_t r, int error, const MPI_Status* status, Engine& engine) {
  if (!take(r, Op::kRecv, engine)) return;
  const std::uint64_t bytes = engine.scratch().recv_range[r].size();
  // (A broken rank posted empty receives: it fails the call already.)
  if (error == MPI_SUCCESS && status != nullptr && !broken_ && engine.came_short(r, status_bytes(*status)))
    error = kErrShort;
  bool missing = error != MPI_SUCCESS;
  if (recv_staged() && error == MPI_SUCCESS && bytes > 0 && !hollow_) {
    const algos::Recv& recv = plan_.recvs[r];
    const int rc = device_->to_device(
        engine.blocks().slot_data[static_cast<std::size_t>(recv.slot)] + engine.scratch().recv_range[r].begin,
        device_->staging() + scratch_.recv_stage[r], bytes);
    engine.note(device_failed(rc, "copy to device"));
    missing = missing || rc != 0;
  }
  engine.arrived(r, missing);
}

// Receive r's note came: copy from the sender's memory, or learn that its
// bytes are missing. Every path ends in the engine's arrived (now, or when
// the copy kernel finishes), so forwards and acks always go out.
void DeviceTransport::on_note(std::size_t r, int error, Engine& engine) {
  if (!take(r, kNote, engine)) return;
  const algos::Recv& recv = plan_.recvs[r];
  const IpcDescriptor& d = scratch_.recv_desc[r];
  const algos::ByteRange range = engine.scratch().recv_range[r];
  if (error != MPI_SUCCESS || d.missing != 0) {
    if (error == MPI_SUCCESS) {
      log(LogLevel::kWarn, "a block from rank %d came without its bytes (an error on a rank it passed)", recv.peer);
      engine.note(kErrShort);
    }
    engine.arrived(r, true);
    return;
  }
  scratch_.read_from[static_cast<std::size_t>(recv.peer)] = 1;
  if (d.bytes > range.size()) engine.note(kErrTruncate);  // an erroneous program: the two ends' sizes differ
  bool missing = engine.came_short(r, d.bytes);
  const std::uint64_t bytes = std::min<std::uint64_t>(d.bytes, range.size());
  if (bytes > 0 && !hollow_) {
    char* dst = engine.blocks().slot_data[static_cast<std::size_t>(recv.slot)] + range.begin;
    const int process = (*routing_.process_of)[static_cast<std::size_t>(recv.peer)];
    int rc = 0;
    if (device_ == nullptr || routing_.recv == Memory::kForeign) {
      log(LogLevel::kWarn, "rank %d sent its block by IPC, but this rank has no device backend for its receive buffer",
          recv.peer);
      rc = -1;
      engine.note(MPI_ERR_OTHER);
    } else if (routing_.recv == Memory::kDevice) {
      rc = device_->start_copy(process, d, dst, bytes, static_cast<int>(r));
      if (rc == 0) return;  // arrives when the copy finishes (progress polls it)
      engine.note(device_failed(rc, "IPC copy"));
    } else {
      rc = device_->read_peer(process, d, dst, bytes);
      engine.note(device_failed(rc, "IPC read"));
    }
    missing = missing || rc != 0;
  }
  engine.arrived(r, missing);
}

void DeviceTransport::completed(engine::Token t, int error, const MPI_Status* status, Engine& engine) {
  const auto i = static_cast<std::size_t>(t.index);
  // A cancelled twin (or, in an erroneous program, a second message) of a
  // receive that already came: nothing to do.
  if ((t.op == Op::kRecv || t.op == kNote) && scratch_.taken[i] != 0) return;
  engine.note(error);
  switch (t.op) {
    case Op::kRecv:
      on_data(i, error, status, engine);
      break;
    case kNote:
      on_note(i, error, engine);
      break;
    case Op::kBundleHead:
      engine.bundle_head(i, error);
      break;
    case Op::kBundleRest:
      engine.bundle_rest(i, error);
      break;
    default:
      break;
  }
}

// One round: the messages that completed, then, while copy kernels run,
// their completions too (the round polls, Testsome, so as to see both).
bool DeviceTransport::progress(bool block, Engine& engine) {
  const bool polling = !block || (device_ != nullptr && device_->copies_running());
  int error = MPI_SUCCESS;
  const bool more = requests_.complete_some(
      polling, error, [&](engine::Token t, int e, const MPI_Status* st) { completed(t, e, st, engine); });
  engine.note(error);
  if (!more) return false;
  if (device_ != nullptr && device_->copies_running()) {
    engine.note(device_failed(device_->poll(scratch_.copied, scratch_.failed_copies), "IPC copy"));
    for (const int token : scratch_.failed_copies) engine.arrived(static_cast<std::size_t>(token), true);
    for (const int token : scratch_.copied) engine.arrived(static_cast<std::size_t>(token), false);
  }
  return true;
}

// Once every fragment from a peer that sent IPC notes has arrived, the peer
// learns that its memory is free again.
void DeviceTransport::after_arrival(std::size_t r, Engine& engine) {
  const int peer = plan_.recvs[r].peer;
  const auto p = static_cast<std::size_t>(peer);
  if (--scratch_.left_from[p] == 0 && scratch_.read_from[p] != 0) {
    engine.note(PMPI_Isend(nullptr, 0, MPI_BYTE, channel_.rank(peer), routing_.ack_tag, channel_.comm,
                           requests_.add({kAckSend, peer}, MessagePeer::to(peer))));
  }
}

// A local copy (self or duplicate edge) into a receive slot, from bytes on
// the send side or the receive side, each where this rank's buffers lie.
int DeviceTransport::copy_local(char* to, const char* from, std::uint64_t bytes, bool from_send_side) {
  const Memory from_memory = from_send_side ? routing_.send : routing_.recv;
  const Memory to_memory = routing_.recv;
  if (from_memory == Memory::kForeign || to_memory == Memory::kForeign) {
    // Memory nbrcoll does not move: the MPI copies it, as in its own
    // collective (a message to itself, on the handle's ack tag, which no
    // peer uses towards this rank's own rank).
    int me = 0;
    PMPI_Comm_rank(channel_.comm, &me);
    const ByteMessage m(bytes);
    return PMPI_Sendrecv(from, m.count(), m.type(), me, routing_.ack_tag, to, m.count(), m.type(), me, routing_.ack_tag,
                         channel_.comm, MPI_STATUS_IGNORE);
  }
  int rc = 0;
  if (from_memory == Memory::kHost && to_memory == Memory::kHost) {
    std::memmove(to, from, bytes);
  } else if (from_memory == Memory::kHost) {
    rc = device_->to_device(to, from, bytes);
  } else if (to_memory == Memory::kHost) {
    rc = device_->to_host(to, from, bytes);
  } else {
    rc = device_->copy_local(to, from, bytes);
  }
  if (rc == 0) return MPI_SUCCESS;
  log(LogLevel::kWarn, "device copy of a local block failed (%d: %s)", rc, device_->last_error());
  return MPI_ERR_OTHER;
}

}  // namespace nbrcoll
