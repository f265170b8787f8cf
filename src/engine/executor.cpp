#include "engine/executor.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "transport/device/device_call.h"
#include "support/log.h"
#include "transport/status_bytes.h"

namespace nbrcoll {

namespace {

constexpr std::uint64_t kMaxPacked = INT_MAX;  // MPI_Pack / MPI_Unpack count bytes in an int

const char* block_data(const CallLayout& layout, int slot) {
  return slot < 0 ? layout.send_data() : layout.slot_data(slot);
}

// Where a send's bytes come from: its out-edge's block (alltoall), the own
// block, or a receive slot (a forward).
const char* send_source(const CallLayout& layout, const algos::Send& s) {
  return s.out_edge >= 0 ? layout.send_data(s.out_edge) : block_data(layout, s.slot);
}
std::uint64_t send_source_bytes(const CallLayout& layout, const algos::Send& s) {
  return s.out_edge >= 0 ? layout.send_bytes(s.out_edge) : layout.block_bytes(s.slot);
}

// Whether a fragment (a message, an IPC note's bytes, a bundle's piece)
// brought `got` of its `expected` bytes and so came short; the first of a
// call is logged (`reported`). A block must come whole: a sender that could
// not prepare its buffers (CallLayout::make_hollow) sends empty fragments so
// that nobody waits, a forwarder passes on an empty fragment for one it did
// not get whole, and in an erroneous program a sender's block may be
// shorter than the receiver's. The receiver then reports an error instead
// of success with stale bytes in its block. (A hollow receiver expects 0.)
bool came_short(std::uint64_t got, std::uint64_t expected, int peer, bool& reported) {
  if (got >= expected) return false;
  if (!reported) {
    reported = true;
    log(LogLevel::kWarn,
        "a fragment of %llu bytes from rank %d came short: its block is incomplete here (a rank could not "
        "prepare its buffers, or the block is shorter at its sender than in this rank's receive)",
        static_cast<unsigned long long>(expected), peer);
  }
  return true;
}

// MPI counts are ints: a fragment above INT_MAX bytes is one message of a
// derived type (whole GiB units plus the rest), still one message.
class ByteMessage {
 public:
  explicit ByteMessage(std::uint64_t bytes) {
    if (bytes <= static_cast<std::uint64_t>(INT_MAX)) {
      count_ = static_cast<int>(bytes);
      return;
    }
    constexpr std::uint64_t kUnit = std::uint64_t{1} << 30;
    MPI_Datatype unit = MPI_DATATYPE_NULL;
    PMPI_Type_contiguous(static_cast<int>(kUnit), MPI_BYTE, &unit);
    const int lengths[2] = {static_cast<int>(bytes / kUnit), static_cast<int>(bytes % kUnit)};
    const MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(bytes / kUnit * kUnit)};
    const MPI_Datatype types[2] = {unit, MPI_BYTE};
    PMPI_Type_create_struct(2, lengths, displs, types, &type_);
    PMPI_Type_commit(&type_);
    PMPI_Type_free(&unit);
    count_ = 1;
  }
  ByteMessage(const ByteMessage&) = delete;
  ByteMessage& operator=(const ByteMessage&) = delete;
  // A datatype may be freed while operations that use it are pending.
  ~ByteMessage() {
    if (type_ != MPI_BYTE) PMPI_Type_free(&type_);
  }
  [[nodiscard]] int count() const { return count_; }
  [[nodiscard]] MPI_Datatype type() const { return type_; }

 private:
  int count_ = 0;
  MPI_Datatype type_ = MPI_BYTE;
};

// `count` elements of `type` at `buf`, as MPI_Pack / MPI_Unpack take them.
// MPI_BOTTOM (a null buffer with absolute addresses in the type) is valid
// there, but MPICH 4.0 rejects a null buffer: it is then addressed through a
// view whose base is the type's true lower bound, the same bytes.
class PackView {
 public:
  PackView(const void* buf, int count, MPI_Datatype type) : base_(const_cast<void*>(buf)), count_(count), type_(type) {
    if (buf != nullptr || count == 0) return;
    MPI_Aint lb = 0;
    MPI_Aint extent = 0;
    PMPI_Type_get_true_extent(type, &lb, &extent);
    const MPI_Aint shift = -lb;
    PMPI_Type_create_struct(1, &count, &shift, &type, &view_);
    PMPI_Type_commit(&view_);
    base_ = offset_address(nullptr, lb);
    count_ = 1;
    type_ = view_;
  }
  PackView(const PackView&) = delete;
  PackView& operator=(const PackView&) = delete;
  ~PackView() {
    if (view_ != MPI_DATATYPE_NULL) PMPI_Type_free(&view_);
  }
  [[nodiscard]] void* base() const { return base_; }
  [[nodiscard]] int count() const { return count_; }
  [[nodiscard]] MPI_Datatype type() const { return type_; }

 private:
  void* base_;
  int count_;
  MPI_Datatype type_;
  MPI_Datatype view_ = MPI_DATATYPE_NULL;
};

// A local copy (self or duplicate edge) in a process with a GPU runtime,
// into a receive slot, from bytes that lie in `from`.
int copy_local(const DeviceRouting& d, MPI_Comm comm, char* to, const char* from, Memory from_memory,
               std::uint64_t bytes) {
  const Memory to_memory = d.recv;
  if (from_memory == Memory::kForeign || to_memory == Memory::kForeign) {
    // Memory nbrcoll does not move: the MPI copies it, as in its own
    // collective (a message to itself, on the handle's ack tag, which no
    // peer uses towards this rank's own rank).
    int me = 0;
    PMPI_Comm_rank(comm, &me);
    const ByteMessage m(bytes);
    return PMPI_Sendrecv(from, m.count(), m.type(), me, d.ack_tag, to, m.count(), m.type(), me, d.ack_tag, comm,
                         MPI_STATUS_IGNORE);
  }
  int rc = 0;
  if (from_memory == Memory::kHost && to_memory == Memory::kHost) {
    std::memmove(to, from, bytes);
  } else if (from_memory == Memory::kHost) {
    rc = d.device->to_device(to, from, bytes);
  } else if (to_memory == Memory::kHost) {
    rc = d.device->to_host(to, from, bytes);
  } else {
    rc = d.device->copy_local(to, from, bytes);
  }
  if (rc == 0) return MPI_SUCCESS;
  log(LogLevel::kWarn, "device copy of a local block failed (%d: %s)", rc, d.device->last_error());
  return MPI_ERR_OTHER;
}

}  // namespace

int CallLayout::measure(const CallArgs& args, const std::vector<int>& in_list) {
  hollow_ = false;
  int rc = describe_type(args.sendtype, send_type_);
  if (rc != MPI_SUCCESS) return rc;
  rc = describe_type(args.recvtype, recv_type_);
  if (rc != MPI_SUCCESS) return rc;
  if (args.alltoall) {
    send_bytes_.resize(args.sendcounts.size());
    for (std::size_t j = 0; j < send_bytes_.size(); ++j)
      send_bytes_[j] = static_cast<std::uint64_t>(args.sendcounts[j]) * send_type_.size;
  } else {
    send_bytes_.assign(1, static_cast<std::uint64_t>(args.sendcount) * send_type_.size);
  }
  const std::size_t slots = in_list.size();
  slot_bytes_.assign(slots, 0);
  for (std::size_t i = 0; i < slots; ++i)
    slot_bytes_[i] = static_cast<std::uint64_t>(args.recvcounts[i]) * recv_type_.size;
  return MPI_SUCCESS;
}

void CallLayout::make_hollow() {
  hollow_ = true;
  send_data_.assign(send_bytes_.size(), nullptr);
  std::fill(send_bytes_.begin(), send_bytes_.end(), 0);
  std::fill(slot_data_.begin(), slot_data_.end(), nullptr);
  slot_data_.resize(slot_bytes_.size(), nullptr);
  std::fill(slot_bytes_.begin(), slot_bytes_.end(), 0);
}

int CallLayout::prepare(const CallArgs& args, const std::vector<int>& in_list) {
  const auto fail = [this](int rc) {
    make_hollow();
    return rc;
  };
  // Send blocks: in place where the type allows, else packed one after the other.
  const std::size_t blocks = send_bytes_.size();
  send_data_.assign(blocks, nullptr);
  std::uint64_t packed = 0;
  for (std::size_t j = 0; j < blocks; ++j) {
    if (send_type_.in_place || send_bytes_[j] == 0) continue;
    if (send_bytes_[j] > kMaxPacked) return fail(MPI_ERR_COUNT);
    packed += send_bytes_[j];
  }
  send_stage_.resize(packed);
  packed = 0;
  for (std::size_t j = 0; j < blocks; ++j) {
    const int count = args.alltoall ? args.sendcounts[j] : args.sendcount;
    const char* start = offset_address(args.sendbuf, args.alltoall ? args.sdispls[j] * send_type_.extent : 0);
    if (send_type_.in_place || send_bytes_[j] == 0) {
      send_data_[j] = start;
      continue;
    }
    int position = 0;
    const PackView in(start, count, args.sendtype);
    const int rc = PMPI_Pack(in.base(), in.count(), in.type(), send_stage_.data() + packed,
                             static_cast<int>(send_bytes_[j]), &position, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return fail(rc);
    if (static_cast<std::uint64_t>(position) != send_bytes_[j]) return fail(MPI_ERR_INTERN);
    send_data_[j] = send_stage_.data() + packed;
    packed += send_bytes_[j];
  }
  const std::size_t slots = in_list.size();
  slot_data_.assign(slots, nullptr);
  std::uint64_t staged = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    if (!recv_type_.in_place && in_list[i] != MPI_PROC_NULL) {
      if (slot_bytes_[i] > kMaxPacked) return fail(MPI_ERR_COUNT);
      staged += slot_bytes_[i];
    }
  }
  if (!recv_type_.in_place) recv_stage_.resize(staged);
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    if (in_list[i] == MPI_PROC_NULL) continue;
    if (recv_type_.in_place) {
      slot_data_[i] = offset_address(args.recvbuf, args.displs[i] * recv_type_.extent);
    } else {
      slot_data_[i] = recv_stage_.data() + offset;
      offset += slot_bytes_[i];
    }
  }
  return MPI_SUCCESS;
}

int CallLayout::finish(const CallArgs& args, const algos::MixedPlan& mixed, const CallChoice& choice,
                       const DeviceRouting* device, MPI_Comm comm) {
  if (hollow_) return MPI_SUCCESS;
  for (std::size_t i = 0; i < mixed.plan.copies.size(); ++i) {
    if (!algos::chosen(mixed.copy_variant[i], mixed.copy_unit[i], choice.variant)) continue;
    const algos::LocalCopy& c = mixed.plan.copies[i];
    const bool edge = c.from_out_edge >= 0;
    const std::uint64_t from_bytes = edge ? send_bytes(c.from_out_edge) : block_bytes(c.from_slot);
    const char* from = edge ? send_data(c.from_out_edge) : block_data(*this, c.from_slot);
    const std::uint64_t bytes = std::min(from_bytes, slot_bytes(c.to_slot));
    if (bytes == 0) continue;
    if (device == nullptr) {
      std::memmove(slot_data(c.to_slot), from, bytes);
    } else if (const int rc = copy_local(*device, comm, slot_data(c.to_slot), from,
                                         edge || c.from_slot < 0 ? device->send : device->recv, bytes);
               rc != MPI_SUCCESS) {
      return rc;
    }
  }
  if (recv_type_.in_place) return MPI_SUCCESS;
  for (std::size_t i = 0; i < slot_data_.size(); ++i) {
    if (slot_data_[i] == nullptr || slot_bytes_[i] == 0) continue;
    int position = 0;
    const PackView out(offset_address(args.recvbuf, args.displs[i] * recv_type_.extent), args.recvcounts[i],
                       args.recvtype);
    const int rc = PMPI_Unpack(slot_data_[i], static_cast<int>(slot_bytes_[i]), &position, out.base(), out.count(),
                               out.type(), MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

void GrowBuffer::ensure(std::size_t bytes, std::size_t keep) {
  if (bytes <= capacity_) return;
  auto grown = std::make_unique_for_overwrite<char[]>(bytes);  // no zero fill
  if (keep > 0) std::memcpy(grown.get(), data_.get(), std::min(keep, capacity_));
  data_ = std::move(grown);
  capacity_ = bytes;
}

RunnablePlan make_runnable(algos::MixedPlan mixed, const std::vector<int>& node_of) {
  RunnablePlan r;
  const algos::Plan& plan = mixed.plan;
  const int comm_size = static_cast<int>(node_of.size());
  const int my_node = node_of[static_cast<std::size_t>(plan.rank)];
  const auto on_node = [&](int peer) { return node_of[static_cast<std::size_t>(peer)] == my_node; };
  r.forwards.resize(plan.recvs.size());
  r.recv_on_node.reserve(plan.recvs.size());
  r.send_on_node.reserve(plan.sends.size());
  r.own_sends.reserve(plan.sends.size());
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
  r.bundle_forwards.resize(plan.bundle_recvs.size());
  for (std::size_t i = 0; i < plan.bundle_sends.size(); ++i) {
    std::vector<int> from;
    for (const algos::PieceSource& f : plan.bundle_sends[i].from) {
      if (f.bundle >= 0) from.push_back(f.bundle);
    }
    std::sort(from.begin(), from.end());
    from.erase(std::unique(from.begin(), from.end()), from.end());
    for (const int b : from) r.bundle_forwards[static_cast<std::size_t>(b)].push_back(static_cast<int>(i));
    r.bundle_waits.push_back(static_cast<int>(from.size()));
  }
  const auto variant = [](algos::Variant v) { return static_cast<std::size_t>(v); };
  for (std::size_t i = 0; i < plan.recvs.size(); ++i)
    r.recvs_of[variant(mixed.recv_variant[i])].push_back(static_cast<int>(i));
  for (std::size_t i = 0; i < plan.sends.size(); ++i)
    r.sends_of[variant(mixed.send_variant[i])].push_back(static_cast<int>(i));
  for (const int s : r.own_sends) r.own_sends_of[variant(mixed.send_variant[static_cast<std::size_t>(s)])].push_back(s);
  r.mixed = std::move(mixed);
  return r;
}

void choose_variants(const RunnablePlan& plan, const CallLayout& layout, const VariantRule& rule,
                     std::vector<algos::Variant>& variant) {
  const std::vector<algos::Unit>& units = plan.mixed.units;
  variant.resize(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) {
    const algos::Unit& u = units[i];
    variant[i] = rule(u.send_block >= 0 ? layout.send_bytes(u.send_block) : layout.slot_bytes(u.slot));
  }
}

namespace run_detail {

// One posted message: what it is, and for which fragment (or peer, for acks).
enum class Op : std::uint8_t { kRecv, kNote, kSend, kAckRecv, kAckSend, kBundleHead, kBundleRest, kBundleSend };
struct Pending {
  Op op = Op::kRecv;
  int fragment = 0;
};

// The vectors of one run, kept in the call's scratch (RunScratch) between
// calls: a call allocates none of them once its sizes have been seen.
// Each is cleared, assigned or resized before a call reads it (setup(),
// complete_all(), progress_once()).
struct Buffers {
  std::vector<algos::ByteRange> recv_range;  // per fragment, for this call's block sizes
  std::vector<algos::ByteRange> send_range;
  std::vector<std::uint64_t> recv_stage;  // offset of a staged fragment in the staging area
  std::vector<std::uint64_t> send_stage;
  std::vector<IpcDescriptor> recv_desc;  // per recv: its note, if one came
  std::vector<IpcDescriptor> send_desc;  // per send: its note, if it sends one
  // Notes only, per receive: the indices of its data and note requests,
  // and whether one of them came (the other is then cancelled).
  std::vector<std::size_t> data_request;
  std::vector<std::size_t> note_request;
  std::vector<char> taken;
  // Per receive: its bytes are not all here (an error, a short or missing
  // fragment); its forwards then send kMissing notes, or empty messages on
  // host-only processes, so that every rank downstream learns it too.
  std::vector<char> missing;
  // Notes only, per peer rank: receives from it still to arrive, whether it
  // sent an IPC note (then it waits for this rank's ack once all arrived),
  // and whether this rank waits for its ack.
  std::vector<int> left_from;
  std::vector<char> read_from;
  std::vector<char> ack_posted;
  std::vector<MPI_Request> requests;
  std::vector<Pending> pending;
  std::vector<MPI_Status> statuses;
  std::vector<int> done;
  std::vector<int> copied;
  std::vector<int> failed_copies;
  std::vector<int> bundle_waits;  // per bundle send: bundle receives still to arrive
  // A call whose units chose different variants: its receives, sends and
  // own sends (PlanRun::select_active).
  std::vector<int> active_recvs;
  std::vector<int> active_sends;
  std::vector<int> active_own_sends;
};

// One call's run of a plan: every receive posted first, sends of the rank's
// own block next, and (only where the call forwards, or in a process with a
// GPU runtime) a progress loop that forwards each fragment once it has
// arrived. Host-only processes send every fragment's bytes; processes with a
// GPU runtime let each sender choose a fragment's route (see Route).
class PlanRun {
 public:
  PlanRun(const RunnablePlan& runnable, const CallChoice& choice, const CallLayout& layout, BundleStore& store,
          Buffers& buffers, const Channel& channel, const DeviceRouting* routing)
      : buffers_(buffers),
        plan_(runnable.mixed.plan),
        runnable_(runnable),
        choice_(choice.variant),
        bundles_(choice.bundles),
        layout_(layout),
        store_(store),
        comm_(channel.comm),
        channel_(channel),
        tag_offset_(channel.tag_offset),
        routing_(routing),
        device_(routing != nullptr ? routing->device : nullptr),
        notes_(routing != nullptr) {}

  void start();
  bool step(bool block);
  [[nodiscard]] int error() const { return first_error_; }

 private:
  [[nodiscard]] bool recv_active(std::size_t r) const {
    return algos::chosen(runnable_.mixed.recv_variant[r], runnable_.mixed.recv_unit[r], choice_);
  }
  [[nodiscard]] bool send_active(std::size_t s) const {
    return algos::chosen(runnable_.mixed.send_variant[s], runnable_.mixed.send_unit[s], choice_);
  }
  // A receive whose bytes, if they come as bytes, land in pinned staging
  // first: device slots and a MPI that cannot read device memory.
  [[nodiscard]] bool recv_staged() const {
    return notes_ && !broken_ && routing_->recv == Memory::kDevice && !routing_->gpu_aware;
  }
  // The route of send s before anything fails: from where its bytes lie.
  [[nodiscard]] Route planned_route(std::size_t s) const {
    if (!notes_) return Route::kMpi;
    const algos::Send& send = plan_.sends[s];
    const bool own = send.out_edge >= 0 || send.slot < 0;
    return routing_->route(own ? routing_->send : routing_->recv,
                           own ? routing_->send_exportable : routing_->recv_exportable, runnable_.send_on_node[s]);
  }
  void note(int rc) {
    if (rc != MPI_SUCCESS && first_error_ == MPI_SUCCESS) first_error_ = rc;
  }
  void note_device(int rc, const char* what) {
    if (rc == 0) return;
    log(LogLevel::kWarn, "device %s failed (%d: %s)", what, rc, device_->last_error());
    note(MPI_ERR_OTHER);
  }
  MPI_Request* next_request(Op op, int fragment) {
    buffers_.requests.push_back(MPI_REQUEST_NULL);
    buffers_.pending.push_back({op, fragment});
    return &buffers_.requests.back();
  }
  void select_active();
  void setup();
  void post_recv(std::size_t r);
  void post_send(std::size_t s);
  void send_note(std::size_t s, Route route, const char* data);
  void post_bundle_recv(std::size_t b);
  void on_bundle_head(std::size_t b);
  void on_bundle_arrived(std::size_t b);
  void post_bundle_send(std::size_t b);
  bool take(std::size_t r, Op came);
  void on_data(std::size_t r, int error, const MPI_Status* status);
  void on_note(std::size_t r, int error);
  void on_arrived(std::size_t r);
  void on_complete(const Pending& p, int error, const MPI_Status* status);
  bool complete_all(bool block);
  bool progress_once(bool block);
  [[nodiscard]] bool finished() const {
    return started_ && settled_ == buffers_.requests.size() && (device_ == nullptr || !device_->copies_running());
  }

  Buffers& buffers_;  // this call's vectors, kept in its scratch
  const algos::Plan& plan_;
  const RunnablePlan& runnable_;
  const std::vector<algos::Variant>& choice_;
  bool bundles_;  // this call's bundles travel
  const CallLayout& layout_;
  BundleStore& store_;
  MPI_Comm comm_;
  Channel channel_;  // comm_, the MPI rank of each plan peer there, and tag_offset_
  int tag_offset_;   // this handle's tag block and this call's window in it
  const DeviceRouting* routing_;
  DeviceCall* device_;
  bool notes_;  // a process with a GPU runtime: every receive also takes a note (Route)
  // Notes only: this rank cannot move bytes in this call (no staging): its
  // sends are kMissing notes, its receives take nothing.
  bool broken_ = false;

  // The receives, sends and own sends of this call's chosen variants, in
  // plan order (select_active).
  const std::vector<int>* active_recvs_ = nullptr;
  const std::vector<int>* active_sends_ = nullptr;
  const std::vector<int>* active_own_sends_ = nullptr;
  std::size_t settled_ = 0;  // requests completed (or freed after an error)
  bool started_ = false;
  bool forwards_ = false;  // some active receive of this call is forwarded
  bool reported_short_ = false;
  int first_error_ = MPI_SUCCESS;
};

void PlanRun::select_active() {
  const bool uniform = std::all_of(choice_.begin(), choice_.end(), [&](algos::Variant v) { return v == choice_[0]; });
  if (uniform && !choice_.empty()) {
    const auto v = static_cast<std::size_t>(choice_[0]);
    active_recvs_ = &runnable_.recvs_of[v];
    active_sends_ = &runnable_.sends_of[v];
    active_own_sends_ = &runnable_.own_sends_of[v];
    return;
  }
  buffers_.active_recvs.clear();
  buffers_.active_sends.clear();
  buffers_.active_own_sends.clear();
  for (std::size_t i = 0; i < plan_.recvs.size(); ++i) {
    if (recv_active(i)) buffers_.active_recvs.push_back(static_cast<int>(i));
  }
  for (std::size_t i = 0; i < plan_.sends.size(); ++i) {
    if (send_active(i)) buffers_.active_sends.push_back(static_cast<int>(i));
  }
  for (const int s : runnable_.own_sends) {
    if (send_active(static_cast<std::size_t>(s))) buffers_.active_own_sends.push_back(s);
  }
  active_recvs_ = &buffers_.active_recvs;
  active_sends_ = &buffers_.active_sends;
  active_own_sends_ = &buffers_.active_own_sends;
}

void PlanRun::setup() {
  select_active();
  std::uint64_t staged = 0;
  const std::size_t nr = plan_.recvs.size();
  const std::size_t ns = plan_.sends.size();
  buffers_.requests.clear();
  buffers_.pending.clear();
  buffers_.copied.clear();
  buffers_.failed_copies.clear();
  buffers_.recv_range.assign(nr, {});
  buffers_.recv_stage.assign(nr, 0);
  buffers_.missing.assign(nr, 0);
  for (const int active : *active_recvs_) {
    const auto i = static_cast<std::size_t>(active);
    const algos::Recv& r = plan_.recvs[i];
    buffers_.recv_range[i] = algos::share_bytes(r.share, layout_.slot_bytes(r.slot));
    buffers_.recv_stage[i] = staged;
    if (recv_staged()) staged += buffers_.recv_range[i].size();
    if (!runnable_.forwards[i].empty()) forwards_ = true;
  }
  buffers_.send_range.assign(ns, {});
  buffers_.send_stage.assign(ns, 0);
  std::size_t messages = 0;
  for (const int active : *active_sends_) {
    const auto i = static_cast<std::size_t>(active);
    const algos::Send& s = plan_.sends[i];
    buffers_.send_range[i] = algos::share_bytes(s.share, send_source_bytes(layout_, s));
    buffers_.send_stage[i] = staged;
    if (planned_route(i) == Route::kMpiStaged) staged += buffers_.send_range[i].size();
    ++messages;
  }
  messages += nr;
  if (bundles_) {
    store_.in.resize(plan_.bundle_recvs.size());
    store_.out.resize(plan_.bundle_sends.size());
    buffers_.bundle_waits = runnable_.bundle_waits;
    messages += 2 * (plan_.bundle_recvs.size() + plan_.bundle_sends.size());
    if (!plan_.bundle_recvs.empty()) forwards_ = true;  // every bundle received is taken apart
  }
  if (notes_) {
    if (staged > 0) {
      if (const int rc = device_->reserve_staging(staged); rc != 0) {
        // Still takes part, moving no bytes: its peers learn it from its notes.
        note_device(rc, "staging allocation");
        broken_ = true;
      }
    }
    buffers_.recv_desc.assign(nr, {});
    buffers_.send_desc.assign(ns, {});
    buffers_.data_request.assign(nr, 0);
    buffers_.note_request.assign(nr, 0);
    buffers_.taken.assign(nr, 0);
    const std::size_t ranks = routing_->process_of->size();
    buffers_.left_from.assign(ranks, 0);
    buffers_.read_from.assign(ranks, 0);
    buffers_.ack_posted.assign(ranks, 0);
    for (const int i : *active_recvs_)
      ++buffers_.left_from[static_cast<std::size_t>(plan_.recvs[static_cast<std::size_t>(i)].peer)];
    messages += nr + 2 * ranks;  // a note per receive, at most one ack each way per peer
  }
  // Pointers into buffers_.requests are taken while posting: no reallocation allowed.
  buffers_.requests.reserve(messages);
  buffers_.pending.reserve(messages);
}

void PlanRun::post_recv(std::size_t r) {
  const algos::Recv& recv = plan_.recvs[r];
  const algos::ByteRange range = buffers_.recv_range[r];
  char* data = layout_.hollow() || broken_ ? nullptr : layout_.slot_data(recv.slot) + range.begin;
  if (recv_staged()) data = device_->staging() + buffers_.recv_stage[r];
  const ByteMessage m(broken_ ? 0 : range.size());
  if (notes_) buffers_.data_request[r] = buffers_.requests.size();
  note(PMPI_Irecv(data, m.count(), m.type(), channel_.rank(recv.peer), recv.tag + tag_offset_, comm_,
                  next_request(Op::kRecv, static_cast<int>(r))));
  if (!notes_) return;
  buffers_.note_request[r] = buffers_.requests.size();
  note(PMPI_Irecv(&buffers_.recv_desc[r], sizeof(IpcDescriptor), MPI_BYTE, channel_.rank(recv.peer),
                  recv.tag + tag_offset_ + routing_->note_shift, comm_, next_request(Op::kNote, static_cast<int>(r))));
}

void PlanRun::post_send(std::size_t s) {
  const algos::Send& send = plan_.sends[s];
  const algos::ByteRange range = buffers_.send_range[s];
  const char* data = layout_.hollow() ? nullptr : send_source(layout_, send) + range.begin;
  Route route = planned_route(s);
  const bool lost = layout_.hollow() || broken_ ||
                    (send.after_recv >= 0 && buffers_.missing[static_cast<std::size_t>(send.after_recv)]);
  if (notes_ && lost) {
    route = Route::kMissing;
  } else if (range.size() == 0 || lost) {
    route = Route::kMpi;  // nothing to stage or to read, or (host-only) nothing whole to pass on: an empty message
  }
  if (route == Route::kMpiStaged) {
    char* stage = device_->staging() + buffers_.send_stage[s];
    if (const int rc = device_->to_host(stage, data, range.size()); rc != 0) {
      note_device(rc, "copy to host");
      route = Route::kMissing;
    } else {
      data = stage;
    }
  }
  if (route == Route::kMpi || route == Route::kMpiStaged) {
    const ByteMessage m(lost ? 0 : range.size());
    note(PMPI_Isend(data, m.count(), m.type(), channel_.rank(send.peer), send.tag + tag_offset_, comm_,
                    next_request(Op::kSend, static_cast<int>(s))));
    return;
  }
  send_note(s, route, data);
}

// A note instead of the bytes: where to read them (IPC), or that they are missing.
void PlanRun::send_note(std::size_t s, Route route, const char* data) {
  const algos::Send& send = plan_.sends[s];
  IpcDescriptor& d = buffers_.send_desc[s];
  d = IpcDescriptor{};
  d.bytes = buffers_.send_range[s].size();
  if (route == Route::kIpc) {
    if (const int rc = device_->describe(data, d); rc != 0) {
      note_device(rc, "IPC export");
      route = Route::kMissing;
    }
  }
  d.missing = route == Route::kMissing ? 1 : 0;
  const auto peer = static_cast<std::size_t>(send.peer);
  if (route == Route::kIpc && buffers_.ack_posted[peer] == 0) {
    // The peer reads this rank's memory: this call ends only after its ack.
    buffers_.ack_posted[peer] = 1;
    note(PMPI_Irecv(nullptr, 0, MPI_BYTE, channel_.rank(send.peer), routing_->ack_tag, comm_,
                    next_request(Op::kAckRecv, send.peer)));
  }
  note(PMPI_Isend(&d, sizeof(IpcDescriptor), MPI_BYTE, channel_.rank(send.peer),
                  send.tag + tag_offset_ + routing_->note_shift, comm_, next_request(Op::kSend, static_cast<int>(s))));
}

// Notes only: receive r's data or note came (`came`). True the first time;
// the other request is then cancelled (its sender never sends it), and its
// completion, when the MPI reports it, is ignored.
bool PlanRun::take(std::size_t r, Op came) {
  if (buffers_.taken[r] != 0) return false;
  buffers_.taken[r] = 1;
  MPI_Request& other = buffers_.requests[came == Op::kRecv ? buffers_.note_request[r] : buffers_.data_request[r]];
  if (other != MPI_REQUEST_NULL) note(PMPI_Cancel(&other));
  return true;
}

// Receive r's bytes came (in place, or in staging).
void PlanRun::on_data(std::size_t r, int error, const MPI_Status* status) {
  if (notes_ && !take(r, Op::kRecv)) return;
  const algos::ByteRange range = buffers_.recv_range[r];
  // (A broken rank posted empty receives: it fails the call already.)
  if (error == MPI_SUCCESS && status != nullptr && !broken_ &&
      came_short(status_bytes(*status), range.size(), plan_.recvs[r].peer, reported_short_)) {
    note(MPI_ERR_OTHER);
    error = MPI_ERR_OTHER;
  }
  if (error != MPI_SUCCESS) buffers_.missing[r] = 1;
  if (recv_staged() && error == MPI_SUCCESS && range.size() > 0 && !layout_.hollow()) {
    const int rc = device_->to_device(layout_.slot_data(plan_.recvs[r].slot) + range.begin,
                                      device_->staging() + buffers_.recv_stage[r], range.size());
    note_device(rc, "copy to device");
    if (rc != 0) buffers_.missing[r] = 1;
  }
  on_arrived(r);
}

// Receive r's note came: copy from the sender's memory, or learn that its
// bytes are missing. Every path ends in on_arrived (now, or when the copy
// kernel finishes), so forwards and acks always go out.
void PlanRun::on_note(std::size_t r, int error) {
  if (!take(r, Op::kNote)) return;
  const algos::Recv& recv = plan_.recvs[r];
  const IpcDescriptor& d = buffers_.recv_desc[r];
  const algos::ByteRange range = buffers_.recv_range[r];
  if (error != MPI_SUCCESS || d.missing != 0) {
    if (error == MPI_SUCCESS) {
      log(LogLevel::kWarn, "a block from rank %d came without its bytes (an error on a rank it passed)", recv.peer);
      note(MPI_ERR_OTHER);
    }
    buffers_.missing[r] = 1;
    on_arrived(r);
    return;
  }
  buffers_.read_from[static_cast<std::size_t>(recv.peer)] = 1;
  if (d.bytes > range.size()) note(MPI_ERR_TRUNCATE);  // an erroneous program: the two ends' sizes differ
  if (came_short(d.bytes, range.size(), recv.peer, reported_short_)) {
    note(MPI_ERR_OTHER);
    buffers_.missing[r] = 1;
  }
  const std::uint64_t bytes = std::min<std::uint64_t>(d.bytes, range.size());
  if (bytes > 0 && !layout_.hollow()) {
    char* dst = layout_.slot_data(recv.slot) + range.begin;
    const int process = (*routing_->process_of)[static_cast<std::size_t>(recv.peer)];
    int rc = 0;
    if (device_ == nullptr || routing_->recv == Memory::kForeign) {
      log(LogLevel::kWarn, "rank %d sent its block by IPC, but this rank has no device backend for its receive buffer",
          recv.peer);
      rc = -1;
      note(MPI_ERR_OTHER);
    } else if (routing_->recv == Memory::kDevice) {
      rc = device_->start_copy(process, d, dst, bytes, static_cast<int>(r));
      if (rc == 0) return;  // arrives when the copy finishes (poll)
      note_device(rc, "IPC copy");
    } else {
      rc = device_->read_peer(process, d, dst, bytes);
      note_device(rc, "IPC read");
    }
    if (rc != 0) buffers_.missing[r] = 1;
  }
  on_arrived(r);
}

// Receive r is in its final place (or known missing): forward it, and once
// every fragment from a peer that sent an IPC note has arrived, tell the
// peer its memory is free again. Forwards go out after an error too (a
// kMissing note, or on host-only processes whatever arrived), so no peer
// waits forever.
void PlanRun::on_arrived(std::size_t r) {
  for (int s : runnable_.forwards[r]) post_send(static_cast<std::size_t>(s));
  if (!notes_) return;
  const int peer = plan_.recvs[r].peer;
  const auto p = static_cast<std::size_t>(peer);
  if (--buffers_.left_from[p] == 0 && buffers_.read_from[p] != 0)
    note(PMPI_Isend(nullptr, 0, MPI_BYTE, channel_.rank(peer), routing_->ack_tag, comm_,
                    next_request(Op::kAckSend, peer)));
}

void PlanRun::on_complete(const Pending& p, int error, const MPI_Status* status) {
  const auto i = static_cast<std::size_t>(p.fragment);
  // A cancelled twin (or, in an erroneous program, a second message) of a
  // receive that already came: nothing to do.
  if (notes_ && (p.op == Op::kRecv || p.op == Op::kNote) && buffers_.taken[i] != 0) return;
  note(error);
  switch (p.op) {
    case Op::kRecv:
      on_data(i, error, status);
      break;
    case Op::kNote:
      on_note(i, error);
      break;
    case Op::kBundleHead:
      if (error == MPI_SUCCESS) {
        on_bundle_head(i);
      } else {
        on_bundle_arrived(i);  // nothing usable came: forward what is known (all absent)
      }
      break;
    case Op::kBundleRest:
      on_bundle_arrived(i);
      break;
    default:
      break;
  }
}

// ---- bundles (algos/plan.h: header of piece sizes, then the present pieces;
// a second message carries what exceeds the prefix) --------------------------

void PlanRun::post_bundle_recv(std::size_t b) {
  const algos::BundleRecv& r = plan_.bundle_recvs[b];
  BundleStore::In& in = store_.in[b];
  const std::uint64_t first = algos::bundle_header_bytes(r.pieces.size()) + algos::bundle_prefix_bytes(r.pieces.size());
  in.data.ensure(first);
  // Until a header arrives every piece counts as absent.
  in.size.assign(r.pieces.size(), algos::kAbsentPiece);
  in.offset.assign(r.pieces.size(), 0);
  const ByteMessage m(first);
  note(PMPI_Irecv(in.data.data(), m.count(), m.type(), channel_.rank(r.peer), r.tag + tag_offset_, comm_,
                  next_request(Op::kBundleHead, static_cast<int>(b))));
}

// The first message of a bundle arrived: read the sizes; the rest follows
// in a second message only when the payload exceeds the prefix.
void PlanRun::on_bundle_head(std::size_t b) {
  const algos::BundleRecv& r = plan_.bundle_recvs[b];
  BundleStore::In& in = store_.in[b];
  const std::size_t n = r.pieces.size();
  std::uint64_t payload = 0;
  for (std::size_t k = 0; k < n; ++k) {
    std::uint64_t size = 0;
    std::memcpy(&size, in.data.data() + 8 * k, sizeof size);
    in.size[k] = size;
    in.offset[k] = payload;
    if (size != algos::kAbsentPiece) payload += size;
  }
  const std::uint64_t header = algos::bundle_header_bytes(n);
  const std::uint64_t prefix = algos::bundle_prefix_bytes(n);
  if (payload <= prefix) {
    on_bundle_arrived(b);
    return;
  }
  in.data.ensure(header + payload, header + prefix);
  const ByteMessage m(payload - prefix);
  note(PMPI_Irecv(in.data.data() + header + prefix, m.count(), m.type(), channel_.rank(r.peer), r.tag + tag_offset_,
                  comm_, next_request(Op::kBundleRest, static_cast<int>(b))));
}

// A whole bundle is here: its pieces for this rank's slots go there, and
// the bundles that carry its pieces on go out once all their sources came.
void PlanRun::on_bundle_arrived(std::size_t b) {
  const algos::BundleRecv& r = plan_.bundle_recvs[b];
  BundleStore::In& in = store_.in[b];
  const std::uint64_t header = algos::bundle_header_bytes(r.pieces.size());
  for (std::size_t k = 0; k < r.pieces.size(); ++k) {
    const int slot = r.slot[k];
    if (slot < 0) continue;
    const bool expected = algos::piece_present(runnable_.mixed.bundle_recv_unit[b][k], choice_);
    const bool present = in.size[k] != algos::kAbsentPiece;
    if (expected != present) {
      // Only an erroneous program gets here: the two ends of a block saw
      // different sizes and chose different variants.
      log(LogLevel::kWarn, "a block from rank %d came %s its bundle (block sizes differ between its two ends)",
          r.pieces[k].origin, present ? "unexpectedly in" : "absent from");
      note(MPI_ERR_OTHER);
      continue;
    }
    if (!present || layout_.hollow()) continue;
    const std::uint64_t room = layout_.slot_bytes(slot);
    if (in.size[k] > room) note(MPI_ERR_TRUNCATE);
    // A short piece is carried on as it came: the bundles downstream say the same size.
    if (came_short(in.size[k], room, r.pieces[k].origin, reported_short_)) note(MPI_ERR_OTHER);
    const std::uint64_t bytes = std::min(in.size[k], room);
    if (bytes > 0) std::memcpy(layout_.slot_data(slot), in.data.data() + header + in.offset[k], bytes);
  }
  for (const int s : runnable_.bundle_forwards[b]) {
    if (--buffers_.bundle_waits[static_cast<std::size_t>(s)] == 0) post_bundle_send(static_cast<std::size_t>(s));
  }
}

void PlanRun::post_bundle_send(std::size_t b) {
  const algos::BundleSend& s = plan_.bundle_sends[b];
  const std::vector<int>& unit = runnable_.mixed.bundle_send_unit[b];
  const std::size_t n = s.pieces.size();
  // Sizes and sources first, then one buffer: header + payload.
  std::vector<std::uint64_t> size(n);
  std::vector<const char*> from(n, nullptr);
  std::uint64_t payload = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const algos::PieceSource& f = s.from[k];
    if (f.bundle < 0) {
      const int block = f.out_edge >= 0 ? f.out_edge : 0;
      size[k] = algos::piece_present(unit[k], choice_) ? layout_.send_bytes(block) : algos::kAbsentPiece;
      from[k] = layout_.hollow() ? nullptr : layout_.send_data(block);
    } else {
      BundleStore::In& in = store_.in[static_cast<std::size_t>(f.bundle)];
      const auto p = static_cast<std::size_t>(f.piece);
      size[k] = in.size[p];
      from[k] = in.data.data() +
                algos::bundle_header_bytes(plan_.bundle_recvs[static_cast<std::size_t>(f.bundle)].pieces.size()) +
                in.offset[p];
    }
    if (size[k] != algos::kAbsentPiece) payload += size[k];
  }
  const std::uint64_t header = algos::bundle_header_bytes(n);
  GrowBuffer& out = store_.out[b];
  out.ensure(header + payload);
  std::uint64_t at = header;
  for (std::size_t k = 0; k < n; ++k) {
    std::memcpy(out.data() + 8 * k, &size[k], sizeof size[k]);
    if (size[k] == algos::kAbsentPiece || size[k] == 0) continue;
    if (from[k] != nullptr) std::memcpy(out.data() + at, from[k], size[k]);
    at += size[k];
  }
  const std::uint64_t prefix = algos::bundle_prefix_bytes(n);
  const std::uint64_t first = header + std::min(payload, prefix);
  const ByteMessage head(first);
  note(PMPI_Isend(out.data(), head.count(), head.type(), channel_.rank(s.peer), s.tag + tag_offset_, comm_,
                  next_request(Op::kBundleSend, static_cast<int>(b))));
  if (payload > prefix) {
    const ByteMessage rest(payload - prefix);
    note(PMPI_Isend(out.data() + first, rest.count(), rest.type(), channel_.rank(s.peer), s.tag + tag_offset_, comm_,
                    next_request(Op::kBundleSend, static_cast<int>(b))));
  }
}

// A request that completed with an error: MPICH frees it in Waitsome and
// Waitall, Open MPI leaves it allocated (it frees only requests that
// succeeded), so whatever is left is freed here. It is then never waited for
// again, so no completion is counted twice.
void release_failed(MPI_Request& req) {
  if (req != MPI_REQUEST_NULL) PMPI_Request_free(&req);
  req = MPI_REQUEST_NULL;
}

// Waitall (Testall unless `block`) of `requests`; false while some are still
// in flight. The first error goes to `first_error` (if none is there yet);
// a request that failed is freed, one the failed Waitall did not reach is
// waited for.
bool complete_requests(std::vector<MPI_Request>& requests, std::vector<MPI_Status>& statuses, bool block,
                       int& first_error) {
  const auto note = [&first_error](int rc) {
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
  };
  statuses.resize(requests.size());
  const int n = static_cast<int>(requests.size());
  int flag = 1;
  const int rc = block ? PMPI_Waitall(n, requests.data(), statuses.data())
                       : PMPI_Testall(n, requests.data(), &flag, statuses.data());
  if (flag == 0 && rc == MPI_SUCCESS) return false;
  if (rc == MPI_ERR_IN_STATUS) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const int error = statuses[i].MPI_ERROR;
      if (error == MPI_ERR_PENDING) {
        note(PMPI_Wait(&requests[i], MPI_STATUS_IGNORE));  // not reached by the failed Waitall
      } else if (error != MPI_SUCCESS) {
        note(error);
        release_failed(requests[i]);
      }
    }
  } else {
    note(rc);
  }
  return true;
}

void LinearRun::start() {
  std::vector<MPI_Request>& requests = buffers_.requests;
  requests.clear();
  const auto linear = static_cast<std::size_t>(algos::Variant::kLinear);
  const algos::Plan& plan = plan_.mixed.plan;
  const bool hollow = layout_.hollow();
  const auto post = [&](int rc) {
    if (rc != MPI_SUCCESS && error_ == MPI_SUCCESS) error_ = rc;
  };
  requests.reserve(plan_.recvs_of[linear].size() + plan_.own_sends_of[linear].size());
  for (const int i : plan_.recvs_of[linear]) {
    const algos::Recv& r = plan.recvs[static_cast<std::size_t>(i)];
    const algos::ByteRange range = algos::share_bytes(r.share, layout_.slot_bytes(r.slot));
    char* data = hollow ? nullptr : layout_.slot_data(r.slot) + range.begin;
    const ByteMessage m(range.size());
    requests.push_back(MPI_REQUEST_NULL);
    post(PMPI_Irecv(data, m.count(), m.type(), channel_.rank(r.peer), r.tag + channel_.tag_offset, channel_.comm,
                    &requests.back()));
  }
  for (const int i : plan_.own_sends_of[linear]) {
    const algos::Send& s = plan.sends[static_cast<std::size_t>(i)];
    const algos::ByteRange range = algos::share_bytes(s.share, send_source_bytes(layout_, s));
    const char* data = hollow ? nullptr : send_source(layout_, s) + range.begin;
    const ByteMessage m(range.size());
    requests.push_back(MPI_REQUEST_NULL);
    post(PMPI_Isend(data, m.count(), m.type(), channel_.rank(s.peer), s.tag + channel_.tag_offset, channel_.comm,
                    &requests.back()));
  }
}

bool LinearRun::step(bool block) {
  if (finished_) return true;
  finished_ = complete_requests(buffers_.requests, buffers_.statuses, block, error_);
  if (finished_ && error_ == MPI_SUCCESS) {
    // The receives were posted first, in this order (start()).
    const algos::Plan& plan = plan_.mixed.plan;
    const std::vector<int>& recvs = plan_.recvs_of[static_cast<std::size_t>(algos::Variant::kLinear)];
    for (std::size_t k = 0; k < recvs.size(); ++k) {
      const algos::Recv& r = plan.recvs[static_cast<std::size_t>(recvs[k])];
      const std::uint64_t expected = algos::share_bytes(r.share, layout_.slot_bytes(r.slot)).size();
      if (came_short(status_bytes(buffers_.statuses[k]), expected, r.peer, reported_short_)) error_ = MPI_ERR_OTHER;
    }
  }
  return finished_;
}

// No forwarding and no notes (a host-only process): one Waitall (Testall
// when the caller must not block), as MPI's own linear algorithm does.
bool PlanRun::complete_all(bool block) {
  if (!complete_requests(buffers_.requests, buffers_.statuses, block, first_error_)) return false;
  settled_ = buffers_.requests.size();           // nothing to forward or to copy: every block is in place
  if (first_error_ != MPI_SUCCESS) return true;  // the call fails already
  for (std::size_t i = 0; i < buffers_.pending.size(); ++i) {
    const Pending& p = buffers_.pending[i];
    if (p.op != Op::kRecv) continue;
    const auto r = static_cast<std::size_t>(p.fragment);
    if (came_short(status_bytes(buffers_.statuses[i]), buffers_.recv_range[r].size(), plan_.recvs[r].peer,
                   reported_short_))
      note(MPI_ERR_OTHER);
  }
  return true;
}

// One round of forwarding: each fragment goes on once it has arrived. While
// copy kernels run, the round polls (Testsome) so that their completions are
// seen too. Returns false when nothing more can complete.
bool PlanRun::progress_once(bool block) {
  const auto n = static_cast<int>(buffers_.requests.size());
  buffers_.done.resize(buffers_.requests.size());
  buffers_.statuses.resize(buffers_.requests.size());
  int count = 0;
  const bool polling = !block || (device_ != nullptr && device_->copies_running());
  int rc = polling ? PMPI_Testsome(n, buffers_.requests.data(), &count, buffers_.done.data(), buffers_.statuses.data())
                   : PMPI_Waitsome(n, buffers_.requests.data(), &count, buffers_.done.data(), buffers_.statuses.data());
  if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
    // Which requests completed is unknown: go on one completion at a time.
    note(rc);
    int index = MPI_UNDEFINED;
    MPI_Status st;
    rc = PMPI_Waitany(n, buffers_.requests.data(), &index, &st);
    if (index == MPI_UNDEFINED) return false;
    if (rc != MPI_SUCCESS) release_failed(buffers_.requests[static_cast<std::size_t>(index)]);
    ++settled_;
    on_complete(buffers_.pending[static_cast<std::size_t>(index)], rc, rc == MPI_SUCCESS ? &st : nullptr);
    return true;
  }
  if (count != MPI_UNDEFINED) {
    settled_ += static_cast<std::size_t>(count);
    for (int k = 0; k < count; ++k) {
      const auto i = static_cast<std::size_t>(k);
      const auto index = static_cast<std::size_t>(buffers_.done[i]);
      const int error = rc == MPI_ERR_IN_STATUS ? buffers_.statuses[i].MPI_ERROR : MPI_SUCCESS;
      if (error != MPI_SUCCESS) release_failed(buffers_.requests[index]);
      on_complete(buffers_.pending[index], error, &buffers_.statuses[i]);
    }
  } else if (!polling) {
    return false;
  }
  if (device_ != nullptr && device_->copies_running()) {
    note_device(device_->poll(buffers_.copied, buffers_.failed_copies), "IPC copy");
    for (int token : buffers_.failed_copies) buffers_.missing[static_cast<std::size_t>(token)] = 1;
    for (int token : buffers_.failed_copies) on_arrived(static_cast<std::size_t>(token));
    for (int token : buffers_.copied) on_arrived(static_cast<std::size_t>(token));
  }
  return true;
}

void PlanRun::start() {
  started_ = true;
  setup();
  // Every receive is posted before any send, so no order of arrival can deadlock.
  for (const int i : *active_recvs_) post_recv(static_cast<std::size_t>(i));
  if (bundles_) {
    for (std::size_t b = 0; b < plan_.bundle_recvs.size(); ++b) post_bundle_recv(b);
  }
  for (const int s : *active_own_sends_) post_send(static_cast<std::size_t>(s));
  if (bundles_) {
    for (std::size_t b = 0; b < plan_.bundle_sends.size(); ++b) {
      if (buffers_.bundle_waits[b] == 0) post_bundle_send(b);
    }
  }
}

// Advances the call; `block`: may wait inside the MPI. True once finished.
bool PlanRun::step(bool block) {
  if (finished()) return true;
  if (!forwards_ && !notes_) {
    complete_all(block);
  } else {
    while (!finished() && progress_once(block) && block) {
    }
    if (block && !finished()) settled_ = buffers_.requests.size();  // nothing more can complete
  }
  return finished();
}

}  // namespace run_detail

RunScratch::RunScratch() = default;
RunScratch::~RunScratch() = default;
run_detail::Buffers& RunScratch::buffers() {
  if (!buffers_) buffers_ = std::make_unique<run_detail::Buffers>();
  return *buffers_;
}

PlanExecution::PlanExecution(const RunnablePlan& plan, const CallChoice& choice, const CallLayout& layout,
                             BundleStore& bundles, RunScratch& scratch, const Channel& channel,
                             const DeviceRouting* device) {
  const auto linear = static_cast<std::size_t>(algos::Variant::kLinear);
  const bool all_linear = std::all_of(choice.variant.begin(), choice.variant.end(),
                                      [](algos::Variant v) { return v == algos::Variant::kLinear; });
  // (The linear plan forwards nothing: every one of its sends is an own send.)
  const bool forwards = plan.sends_of[linear].size() != plan.own_sends_of[linear].size();
  if (device == nullptr && !choice.bundles && all_linear && !forwards)
    linear_.emplace(plan, layout, scratch.buffers(), channel);
  else
    run_ = std::make_unique<run_detail::PlanRun>(plan, choice, layout, bundles, scratch.buffers(), channel, device);
}
PlanExecution::~PlanExecution() = default;
void PlanExecution::start() {
  if (linear_)
    linear_->start();
  else
    run_->start();
}
bool PlanExecution::step(bool block) {
  return linear_ ? linear_->step(block) : run_->step(block);
}
int PlanExecution::error() const {
  return linear_ ? linear_->error() : run_->error();
}

int run_plan(const RunnablePlan& plan, const CallChoice& choice, const CallLayout& layout, BundleStore& bundles,
             const Channel& channel, const DeviceRouting* device) {
  RunScratch scratch;
  PlanExecution run(plan, choice, layout, bundles, scratch, channel, device);
  run.start();
  run.step(true);
  return run.error();
}

}  // namespace nbrcoll
