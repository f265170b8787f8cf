#include "executor.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "device/device_call.h"
#include "log.h"

namespace nbrcoll {

namespace {

std::uint64_t block_bytes(const CallLayout& layout, int slot) {
  return slot < 0 ? layout.send_bytes() : layout.slot_bytes(slot);
}

const char* block_data(const CallLayout& layout, int slot) {
  return slot < 0 ? layout.send_data() : layout.slot_data(slot);
}

std::uint64_t chunks_of(std::uint64_t bytes, std::uint64_t chunk) {
  return (bytes + chunk - 1) / chunk;
}

// One posted message: what it is, for which fragment and chunk (or peer, for acks).
enum class Op : std::uint8_t { kRecv, kSend, kAckRecv, kAckSend };
struct Pending {
  Op op = Op::kRecv;
  int fragment = 0;
  std::uint64_t chunk = 0;
};

}  // namespace

int CallLayout::prepare(const CallArgs& args, const std::vector<int>& in_list) {
  int rc = describe_type(args.sendtype, send_type_);
  if (rc != MPI_SUCCESS) return rc;
  rc = describe_type(args.recvtype, recv_type_);
  if (rc != MPI_SUCCESS) return rc;

  send_bytes_ = static_cast<std::uint64_t>(args.sendcount) * send_type_.size;
  // MPI_Pack and MPI_Unpack count bytes in an int: larger packed blocks cannot
  // be staged, and the call goes to PMPI (decided by all ranks together).
  constexpr std::uint64_t kMaxPacked = INT_MAX;
  if (!send_type_.in_place && send_bytes_ > kMaxPacked) return MPI_ERR_COUNT;
  if (send_type_.in_place || send_bytes_ == 0) {
    send_data_ = static_cast<const char*>(args.sendbuf);
  } else {
    send_stage_.resize(send_bytes_);
    int position = 0;
    rc = PMPI_Pack(args.sendbuf, args.sendcount, args.sendtype, send_stage_.data(), static_cast<int>(send_bytes_),
                   &position, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
    if (static_cast<std::uint64_t>(position) != send_bytes_) return MPI_ERR_INTERN;
    send_data_ = send_stage_.data();
  }

  const std::size_t slots = in_list.size();
  slot_data_.assign(slots, nullptr);
  slot_bytes_.assign(slots, 0);
  std::uint64_t staged = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    slot_bytes_[i] = static_cast<std::uint64_t>(args.recvcounts[i]) * recv_type_.size;
    if (!recv_type_.in_place && in_list[i] != MPI_PROC_NULL) {
      if (slot_bytes_[i] > kMaxPacked) return MPI_ERR_COUNT;
      staged += slot_bytes_[i];
    }
  }
  if (!recv_type_.in_place) recv_stage_.resize(staged);
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    if (in_list[i] == MPI_PROC_NULL) continue;
    if (recv_type_.in_place) {
      slot_data_[i] = static_cast<char*>(args.recvbuf) + args.displs[i] * recv_type_.extent;
    } else {
      slot_data_[i] = recv_stage_.data() + offset;
      offset += slot_bytes_[i];
    }
  }
  return MPI_SUCCESS;
}

std::uint64_t CallLayout::largest_block() const {
  std::uint64_t largest = send_bytes_;
  for (std::uint64_t b : slot_bytes_) largest = std::max(largest, b);
  return largest;
}

int CallLayout::finish(const CallArgs& args, const std::vector<algos::LocalCopy>& copies, DeviceCall* device) {
  for (const algos::LocalCopy& c : copies) {
    const std::uint64_t bytes = std::min(block_bytes(*this, c.from_slot), slot_bytes(c.to_slot));
    if (bytes == 0) continue;
    if (device == nullptr) {
      std::memmove(slot_data(c.to_slot), block_data(*this, c.from_slot), bytes);
    } else if (device->copy_local(slot_data(c.to_slot), block_data(*this, c.from_slot), bytes) != 0) {
      return MPI_ERR_OTHER;
    }
  }
  if (recv_type_.in_place) return MPI_SUCCESS;
  for (std::size_t i = 0; i < slot_data_.size(); ++i) {
    if (slot_data_[i] == nullptr || slot_bytes_[i] == 0) continue;
    int position = 0;
    char* target = static_cast<char*>(args.recvbuf) + args.displs[i] * recv_type_.extent;
    const int rc = PMPI_Unpack(slot_data_[i], static_cast<int>(slot_bytes_[i]), &position, target, args.recvcounts[i],
                               args.recvtype, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

RunnablePlan make_runnable(algos::Plan plan, const std::vector<int>& node_of) {
  RunnablePlan r;
  const int comm_size = static_cast<int>(node_of.size());
  const int my_node = node_of[static_cast<std::size_t>(plan.rank)];
  const auto on_node = [&](int peer) { return node_of[static_cast<std::size_t>(peer)] == my_node; };
  r.forwards.resize(plan.recvs.size());
  for (const algos::Recv& recv : plan.recvs) r.recv_on_node.push_back(on_node(recv.peer));
  for (std::size_t i = 0; i < plan.sends.size(); ++i) {
    r.send_on_node.push_back(on_node(plan.sends[i].peer));
    const int after = plan.sends[i].after_recv;
    if (after >= 0)
      r.forwards[static_cast<std::size_t>(after)].push_back(static_cast<int>(i));
    else
      r.own_sends.push_back(static_cast<int>(i));
  }
  const auto distance = [&](int s) {
    return (plan.sends[static_cast<std::size_t>(s)].peer - plan.rank + comm_size) % comm_size;
  };
  std::stable_sort(r.own_sends.begin(), r.own_sends.end(), [&](int a, int b) { return distance(a) < distance(b); });
  r.plan = std::move(plan);
  return r;
}

namespace {

// One call's run of a plan: every receive posted first, sends of the rank's
// own block next, and a progress loop that forwards each chunk once it has
// arrived. Host buffers take Route::kMpi everywhere; device buffers add the
// staged and IPC routes (see Route).
class PlanRun {
 public:
  PlanRun(const RunnablePlan& runnable, const CallLayout& layout, MPI_Comm comm, std::uint64_t chunk,
          const DeviceRouting* routing)
      : plan_(runnable.plan),
        runnable_(runnable),
        layout_(layout),
        comm_(comm),
        chunk_(std::clamp<std::uint64_t>(chunk, 1, INT_MAX)),
        routing_(routing),
        device_(routing != nullptr ? routing->device : nullptr) {}

  int run();

 private:
  [[nodiscard]] Route recv_route(std::size_t r) const {
    return routing_ != nullptr ? routing_->route(runnable_.recv_on_node[r]) : Route::kMpi;
  }
  [[nodiscard]] Route send_route(std::size_t s) const {
    return routing_ != nullptr ? routing_->route(runnable_.send_on_node[s]) : Route::kMpi;
  }
  [[nodiscard]] std::pair<std::uint64_t, int> piece(const algos::ByteRange& range, std::uint64_t c) const {
    const std::uint64_t begin = range.begin + c * chunk_;
    return {begin, static_cast<int>(std::min(chunk_, range.end - begin))};
  }
  void note(int rc) {
    if (rc != MPI_SUCCESS && first_error_ == MPI_SUCCESS) first_error_ = rc;
  }
  void note_device(int rc, const char* what) {
    if (rc == 0) return;
    log(LogLevel::kWarn, "device %s failed (%d: %s)", what, rc, device_->last_error());
    note(MPI_ERR_OTHER);
  }
  MPI_Request* next_request(Op op, int fragment, std::uint64_t c) {
    requests_.emplace_back();
    pending_.push_back({op, fragment, c});
    return &requests_.back();
  }
  int setup();
  void post_recv_chunk(std::size_t r, std::uint64_t c);
  void post_send_chunk(std::size_t s, std::uint64_t c);
  void on_recv_complete(std::size_t r, std::uint64_t c);
  void on_arrived(std::size_t r, std::uint64_t c);
  void on_complete(const Pending& p);
  void abandon();

  const algos::Plan& plan_;
  const RunnablePlan& runnable_;
  const CallLayout& layout_;
  MPI_Comm comm_;
  std::uint64_t chunk_;
  const DeviceRouting* routing_;
  DeviceCall* device_;

  std::vector<algos::ByteRange> recv_range_;  // per fragment, for this call's block sizes
  std::vector<algos::ByteRange> send_range_;
  std::vector<std::size_t> recv_first_chunk_;  // global chunk numbering (descriptors, copy tokens)
  std::vector<std::size_t> send_first_chunk_;
  std::vector<std::uint64_t> recv_stage_;  // offset of a staged fragment in the staging area
  std::vector<std::uint64_t> send_stage_;
  std::vector<IpcDescriptor> recv_desc_;  // per recv chunk (IPC route)
  std::vector<IpcDescriptor> send_desc_;  // per send chunk (IPC route)
  std::vector<int> ipc_chunks_from_;      // per peer: IPC chunks still to copy, then the ack
  std::vector<std::vector<bool>> arrived_;
  std::vector<std::uint64_t> next_chunk_;
  std::vector<MPI_Request> requests_;
  std::vector<Pending> pending_;
  int first_error_ = MPI_SUCCESS;
};

int PlanRun::setup() {
  std::size_t recv_chunks = 0;
  std::size_t send_chunks = 0;
  std::uint64_t staged = 0;
  for (std::size_t i = 0; i < plan_.recvs.size(); ++i) {
    const algos::Recv& r = plan_.recvs[i];
    recv_range_.push_back(algos::share_bytes(r.share, layout_.slot_bytes(r.slot)));
    recv_first_chunk_.push_back(recv_chunks);
    recv_chunks += chunks_of(recv_range_[i].size(), chunk_);
    recv_stage_.push_back(staged);
    if (recv_route(i) == Route::kMpiStaged) staged += recv_range_[i].size();
  }
  for (std::size_t i = 0; i < plan_.sends.size(); ++i) {
    const algos::Send& s = plan_.sends[i];
    send_range_.push_back(algos::share_bytes(s.share, block_bytes(layout_, s.slot)));
    send_first_chunk_.push_back(send_chunks);
    send_chunks += chunks_of(send_range_[i].size(), chunk_);
    send_stage_.push_back(staged);
    if (send_route(i) == Route::kMpiStaged) staged += send_range_[i].size();
  }
  const std::size_t total = recv_chunks + send_chunks;
  if (device_ != nullptr) {
    if (const int rc = device_->reserve_staging(staged); rc != 0) {
      note_device(rc, "staging allocation");
      return first_error_;
    }
    recv_desc_.resize(recv_chunks);
    send_desc_.resize(send_chunks);
    ipc_chunks_from_.assign(routing_->process_of->size(), 0);  // one per rank of the communicator
  }
  arrived_.resize(plan_.recvs.size());
  for (std::size_t i = 0; i < plan_.recvs.size(); ++i) {
    arrived_[i].assign(chunks_of(recv_range_[i].size(), chunk_), false);
    if (recv_route(i) == Route::kIpc)
      ipc_chunks_from_[static_cast<std::size_t>(plan_.recvs[i].peer)] += static_cast<int>(arrived_[i].size());
  }
  next_chunk_.assign(plan_.sends.size(), 0);
  // Device calls add at most two acks per peer.
  requests_.reserve(total + 2 * ipc_chunks_from_.size());
  pending_.reserve(total + 2 * ipc_chunks_from_.size());
  return MPI_SUCCESS;
}

void PlanRun::post_recv_chunk(std::size_t r, std::uint64_t c) {
  const algos::Recv& recv = plan_.recvs[r];
  const auto [begin, bytes] = piece(recv_range_[r], c);
  MPI_Request* req = next_request(Op::kRecv, static_cast<int>(r), c);
  switch (recv_route(r)) {
    case Route::kMpi:
      note(PMPI_Irecv(layout_.slot_data(recv.slot) + begin, bytes, MPI_BYTE, recv.peer, recv.tag, comm_, req));
      break;
    case Route::kMpiStaged: {
      char* stage = device_->staging() + recv_stage_[r] + (begin - recv_range_[r].begin);
      note(PMPI_Irecv(stage, bytes, MPI_BYTE, recv.peer, recv.tag, comm_, req));
      break;
    }
    case Route::kIpc:
      note(PMPI_Irecv(&recv_desc_[recv_first_chunk_[r] + c], sizeof(IpcDescriptor), MPI_BYTE, recv.peer, recv.tag,
                      comm_, req));
      break;
  }
}

void PlanRun::post_send_chunk(std::size_t s, std::uint64_t c) {
  const algos::Send& send = plan_.sends[s];
  const auto [begin, bytes] = piece(send_range_[s], c);
  const char* data = block_data(layout_, send.slot) + begin;
  switch (send_route(s)) {
    case Route::kMpi:
      note(PMPI_Isend(data, bytes, MPI_BYTE, send.peer, send.tag, comm_,
                      next_request(Op::kSend, static_cast<int>(s), c)));
      break;
    case Route::kMpiStaged: {
      char* stage = device_->staging() + send_stage_[s] + (begin - send_range_[s].begin);
      note_device(device_->to_host(stage, data, static_cast<std::uint64_t>(bytes)), "copy to host");
      note(PMPI_Isend(stage, bytes, MPI_BYTE, send.peer, send.tag, comm_,
                      next_request(Op::kSend, static_cast<int>(s), c)));
      break;
    }
    case Route::kIpc: {
      IpcDescriptor& d = send_desc_[send_first_chunk_[s] + c];
      note_device(device_->describe(data, d), "IPC export");
      note(PMPI_Isend(&d, sizeof(IpcDescriptor), MPI_BYTE, send.peer, send.tag, comm_,
                      next_request(Op::kSend, static_cast<int>(s), c)));
      break;
    }
  }
}

// A receive completed: bytes in place (MPI), in staging, or a descriptor (IPC).
void PlanRun::on_recv_complete(std::size_t r, std::uint64_t c) {
  const algos::Recv& recv = plan_.recvs[r];
  const auto [begin, bytes] = piece(recv_range_[r], c);
  char* dst = layout_.slot_data(recv.slot) + begin;
  switch (recv_route(r)) {
    case Route::kMpi:
      break;
    case Route::kMpiStaged: {
      const char* stage = device_->staging() + recv_stage_[r] + (begin - recv_range_[r].begin);
      note_device(device_->to_device(dst, stage, static_cast<std::uint64_t>(bytes)), "copy to device");
      break;
    }
    case Route::kIpc: {
      const std::size_t token = recv_first_chunk_[r] + c;
      const int process = (*routing_->process_of)[static_cast<std::size_t>(recv.peer)];
      const int rc = device_->start_copy(process, recv_desc_[token], dst, static_cast<std::uint64_t>(bytes),
                                         static_cast<int>(token));
      if (rc == 0) return;  // arrives when the copy finishes (poll)
      // Keep the protocol going so nobody waits forever; the error is reported.
      note_device(rc, "IPC copy");
      break;
    }
  }
  on_arrived(r, c);
}

// Chunk c of recv r is in its final place: forward it, and once every IPC
// chunk from a peer is copied, tell the peer its memory is free again.
void PlanRun::on_arrived(std::size_t r, std::uint64_t c) {
  arrived_[r][c] = true;
  for (int s : runnable_.forwards[r]) {
    std::uint64_t& next = next_chunk_[static_cast<std::size_t>(s)];
    while (next < arrived_[r].size() && arrived_[r][next]) post_send_chunk(static_cast<std::size_t>(s), next++);
  }
  if (recv_route(r) == Route::kIpc) {
    const int peer = plan_.recvs[r].peer;
    if (--ipc_chunks_from_[static_cast<std::size_t>(peer)] == 0) {
      note(PMPI_Isend(nullptr, 0, MPI_BYTE, peer, routing_->ack_tag, comm_, next_request(Op::kAckSend, peer, 0)));
    }
  }
}

void PlanRun::on_complete(const Pending& p) {
  if (p.op == Op::kRecv) on_recv_complete(static_cast<std::size_t>(p.fragment), p.chunk);
}

// An MPI error: give up forwarding, but let everything posted settle.
void PlanRun::abandon() {
  for (MPI_Request& r : requests_) {
    if (r != MPI_REQUEST_NULL) PMPI_Cancel(&r);
  }
  PMPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

int PlanRun::run() {
  if (setup() != MPI_SUCCESS) return first_error_;
  // Every receive is posted before any send, so no order of arrival can deadlock.
  for (std::size_t i = 0; i < plan_.recvs.size(); ++i) {
    for (std::uint64_t c = 0; c < arrived_[i].size(); ++c) post_recv_chunk(i, c);
  }
  // Senders over IPC wait for each reader's "done" before their memory may change.
  if (device_ != nullptr) {
    std::vector<bool> reader(ipc_chunks_from_.size(), false);
    for (std::size_t i = 0; i < plan_.sends.size(); ++i) {
      if (send_route(i) == Route::kIpc && send_range_[i].size() > 0)
        reader[static_cast<std::size_t>(plan_.sends[i].peer)] = true;
    }
    for (std::size_t peer = 0; peer < reader.size(); ++peer) {
      if (!reader[peer]) continue;
      const int p = static_cast<int>(peer);
      note(PMPI_Irecv(nullptr, 0, MPI_BYTE, p, routing_->ack_tag, comm_, next_request(Op::kAckRecv, p, 0)));
    }
  }
  for (int s : runnable_.own_sends) {
    const auto i = static_cast<std::size_t>(s);
    for (std::uint64_t c = 0; c < chunks_of(send_range_[i].size(), chunk_); ++c) post_send_chunk(i, c);
  }

  // Progress loop: a forward of chunk c goes out once chunk c of its source
  // arrived. Chunks of one fragment share a tag and MPI matches them in
  // posting order, so a forward posts its chunks strictly in order even when
  // Waitsome reports the source's chunks out of order. While copy kernels
  // run, the loop polls (Testsome) so that their completions are seen too.
  std::vector<int> done;
  std::vector<int> copied;
  std::size_t settled = 0;
  while (settled < requests_.size() || (device_ != nullptr && device_->copies_running())) {
    done.resize(requests_.size());
    int count = 0;
    const bool polling = device_ != nullptr && device_->copies_running();
    const int rc = polling ? PMPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, done.data(),
                                           MPI_STATUSES_IGNORE)
                           : PMPI_Waitsome(static_cast<int>(requests_.size()), requests_.data(), &count, done.data(),
                                           MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
      note(rc);
      abandon();
      break;
    }
    if (count != MPI_UNDEFINED) {
      settled += static_cast<std::size_t>(count);
      for (int k = 0; k < count; ++k)
        on_complete(pending_[static_cast<std::size_t>(done[static_cast<std::size_t>(k)])]);
    } else if (!polling) {
      break;
    }
    if (polling) {
      note_device(device_->poll(copied), "IPC copy");
      for (int token : copied) {
        // Token -> (recv, chunk): the recv whose first chunk is the last one not above the token.
        const auto it =
            std::upper_bound(recv_first_chunk_.begin(), recv_first_chunk_.end(), static_cast<std::size_t>(token));
        const auto r = static_cast<std::size_t>(it - recv_first_chunk_.begin() - 1);
        on_arrived(r, static_cast<std::uint64_t>(token) - recv_first_chunk_[r]);
      }
    }
  }
  return first_error_;
}

}  // namespace

int run_plan(const RunnablePlan& runnable, const CallLayout& layout, MPI_Comm comm, std::uint64_t chunk,
             const DeviceRouting* device) {
  PlanRun run(runnable, layout, comm, chunk, device);
  return run.run();
}

}  // namespace nbrcoll
