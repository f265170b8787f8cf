// Runs one rank's plan for one MPI_Neighbor_allgather(v) call: nonblocking
// point-to-point on the handle's channel (comm_state.h), each fragment forwarded as soon
// as it has arrived, bytes landing in their final place.
//
// Wire rule: every fragment of the call's plan is exactly one message, empty
// or not. The set of fragments depends on the graph and on the per-origin
// variant choice, never on the block sizes, so a sender and a receiver that
// disagree on a block's size (an erroneous program) still post matching
// message counts: the receiver sees MPI's truncation error or a short
// message, and nobody waits forever. A short fragment is an error at its
// receiver (came_short in executor.cpp): success means every byte came.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "call/datatype.h"
#include "algos/mixed_plan.h"

namespace nbrcoll {

class DeviceCall;
struct DeviceRouting;

// The user's arguments of one call, in one form for both variants.
struct CallArgs {
  const void* sendbuf = nullptr;
  int sendcount = 0;  // allgather: the one block sent to every out-neighbour
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  // Alltoall: one block per out-list entry (displacements in units of the
  // sendtype extent); empty for allgather.
  bool alltoall = false;
  std::vector<int> sendcounts;
  std::vector<MPI_Aint> sdispls;
  void* recvbuf = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  std::vector<int> recvcounts;   // one per in-list slot
  std::vector<MPI_Aint> displs;  // one per slot, in units of the recvtype extent
  bool sends = false;            // a block goes to some real neighbour
  bool receives = false;         // some slot gets a block from a real neighbour
};

// `base` + `offset` bytes as an address, also for MPI_BOTTOM (a null base with
// absolute displacements in the datatype).
inline char* offset_address(const void* base, MPI_Aint offset) {
  return reinterpret_cast<char*>(reinterpret_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(offset));
}

// What one call runs: the variant of every unit of the plan, and whether its
// bundles travel. Every rank of a call decides `bundles` alike (from the
// algorithm setting and the call's mode, never from sizes); a call without
// bundles never chooses the aggregated variant.
struct CallChoice {
  std::vector<algos::Variant> variant;
  bool bundles = false;
};

// Where the bytes of every block live during a call: the user's buffers where
// the types allow it, a packed staging area otherwise.
class CallLayout {
 public:
  // Block sizes only (no allocation): what the per-origin choice and the byte
  // ranges are computed from. MPI_SUCCESS or the error of a type query.
  int measure(const CallArgs& args, const std::vector<int>& in_list);
  // Pack buffers and the packed send block. MPI_SUCCESS or an error; after an
  // error the layout is hollow (see make_hollow).
  int prepare(const CallArgs& args, const std::vector<int>& in_list);
  // Every block empty and nowhere: the rank still sends and receives one
  // message per fragment (so its peers complete), moving no bytes.
  void make_hollow();
  [[nodiscard]] bool hollow() const { return hollow_; }
  // After all fragments arrived: the local copies of the chosen variants
  // (for device buffers by the memory each side lies in: `device`), then
  // unpack staged blocks into the user's buffer.
  int finish(const CallArgs& args, const algos::MixedPlan& mixed, const CallChoice& choice,
             const DeviceRouting* device = nullptr, MPI_Comm comm = MPI_COMM_NULL);

  // Send blocks: allgather has one (block 0, this rank's own block), alltoall
  // one per out-list entry.
  [[nodiscard]] const char* send_data(int block = 0) const { return send_data_[static_cast<std::size_t>(block)]; }
  [[nodiscard]] std::uint64_t send_bytes(int block = 0) const {
    return static_cast<std::size_t>(block) < send_bytes_.size() ? send_bytes_[static_cast<std::size_t>(block)] : 0;
  }
  [[nodiscard]] char* slot_data(int slot) const { return slot_data_[static_cast<std::size_t>(slot)]; }
  [[nodiscard]] std::uint64_t slot_bytes(int slot) const { return slot_bytes_[static_cast<std::size_t>(slot)]; }
  // The block of `slot` (-1: this rank's own block).
  [[nodiscard]] std::uint64_t block_bytes(int slot) const { return slot < 0 ? send_bytes() : slot_bytes(slot); }
  [[nodiscard]] bool send_packed() const { return !send_type_.in_place; }
  [[nodiscard]] bool recv_packed() const { return !recv_type_.in_place; }

 private:
  TypeLayout send_type_;
  TypeLayout recv_type_;
  bool hollow_ = false;
  std::vector<const char*> send_data_;
  std::vector<std::uint64_t> send_bytes_;
  std::vector<char*> slot_data_;
  std::vector<std::uint64_t> slot_bytes_;
  std::vector<char> send_stage_;
  std::vector<char> recv_stage_;
};

// A byte buffer that only grows and is never zero-filled: bundle staging is
// reused call after call, so only the first call of a size pays for pages.
class GrowBuffer {
 public:
  [[nodiscard]] char* data() { return data_.get(); }
  [[nodiscard]] const char* data() const { return data_.get(); }
  // At least `bytes`; the first `keep` bytes survive a growth.
  void ensure(std::size_t bytes, std::size_t keep = 0);

 private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
};

// The bundles of one call: each received one (header + payload, and per
// piece its size as the header says and where it starts in the payload) and
// each sent one. Kept with the call's scratch and reused by the next call.
struct BundleStore {
  struct In {
    GrowBuffer data;
    std::vector<std::uint64_t> size;
    std::vector<std::uint64_t> offset;
  };
  std::vector<In> in;
  std::vector<GrowBuffer> out;
};

// A mixed plan plus what the executor derives from it once, at graph creation
// (nothing here depends on the block sizes or the buffers of a call).
struct RunnablePlan {
  algos::MixedPlan mixed;
  std::vector<std::vector<int>> forwards;  // per receive: the sends that forward it
  // The sends of this rank's own block, in staggered peer order (the next
  // rank first), so that the ranks of a node do not all start on one peer.
  std::vector<int> own_sends;
  std::vector<bool> recv_on_node;  // per receive: the peer shares this rank's node
  std::vector<bool> send_on_node;  // per send: likewise
  // Bundles: per bundle receive the bundle sends that carry its pieces on,
  // per bundle send how many bundle receives it waits for.
  std::vector<std::vector<int>> bundle_forwards;
  std::vector<int> bundle_waits;
  // Per variant, the receives and sends of its fragments, and its own sends
  // in the order of own_sends: a call whose units all chose one variant
  // walks these instead of testing every fragment of every variant.
  std::array<std::vector<int>, algos::kVariantCount> recvs_of;
  std::array<std::vector<int>, algos::kVariantCount> sends_of;
  std::array<std::vector<int>, algos::kVariantCount> own_sends_of;
};
// node_of: rank -> node id, for every rank of the communicator.
RunnablePlan make_runnable(algos::MixedPlan mixed, const std::vector<int>& node_of);

// The variant of every unit: rule(B(unit)), B read from the unit's send
// block or receive slot, the same number on both ends of a block in a
// correct program.
using VariantRule = std::function<algos::Variant(std::uint64_t block_bytes)>;
void choose_variants(const RunnablePlan& plan, const CallLayout& layout, const VariantRule& rule,
                     std::vector<algos::Variant>& variant);

// Where one side (send blocks, receive slots) of a call's bytes lie, as
// this rank alone sees them. Host-only processes have kHost everywhere.
enum class Memory : std::uint8_t {
  kHost,     // CPU memory: the user's host buffer, or a pack stage
  kDevice,   // device memory the device backend moves (contiguous types)
  kForeign,  // device memory nbrcoll does not move itself (no backend for it):
             // handed to the MPI's point-to-point calls as it is, as the
             // MPI's own neighbor collective would
};

// How one fragment travels in a process with a GPU runtime. Its sender
// chooses from what it alone knows (where its bytes lie, whether IPC can
// export them, whether the peer shares its node), so no rank asks another:
// the receiver posts both a data receive and a note receive (IpcDescriptor
// on the tag shifted by `DeviceRouting::note_shift`) and cancels the one
// that did not come.
enum class Route : std::uint8_t {
  kMpi,        // the bytes, by MPI on the buffer itself (host bytes, or a GPU-aware MPI)
  kMpiStaged,  // the bytes, by MPI through pinned host staging
  kIpc,        // a note: same node, the receiver copies from the sender's
               // IPC-mapped memory and acks once done with all of it
  kMissing,    // a note: the block's bytes are not here (a device error or a
               // hollow rank upstream); the receiver reports an error and
               // passes the note on to the ranks it forwards to
};

// The device side of a call in a process with a GPU runtime: what moves the
// bytes, where this rank's own bytes lie, and which routes it may use.
struct DeviceRouting {
  DeviceCall* device = nullptr;                  // nullptr: no device backend in this process
  const std::vector<int>* process_of = nullptr;  // rank -> process id (MPI_COMM_WORLD rank)
  int ack_tag = 0;                               // above every plan tag: "I finished reading your memory"
  int note_shift = 0;                            // note tags: a fragment's tag + this
  bool ipc = true;                               // IPC to peers on this rank's node
  bool gpu_aware = false;                        // the MPI reads device memory (else: staged)
  Memory send = Memory::kHost;                   // this rank's send blocks
  Memory recv = Memory::kHost;                   // this rank's receive slots
  bool send_exportable = false;                  // IPC can export the send / receive buffer
  bool recv_exportable = false;

  // The route of a send whose bytes lie in `from`, before anything fails.
  [[nodiscard]] Route route(Memory from, bool exportable, bool peer_on_node) const {
    if (from != Memory::kDevice) return Route::kMpi;
    if (ipc && exportable && peer_on_node) return Route::kIpc;
    return gpu_aware ? Route::kMpi : Route::kMpiStaged;
  }
};

// Where a call's messages travel: a communicator, the rank there of each
// graph rank, and the shift of every plan tag (the handle's tag block and the
// call's window in it, comm_state.h).
struct Channel {
  MPI_Comm comm = MPI_COMM_NULL;
  const std::vector<int>* rank_of = nullptr;  // graph rank -> rank in `comm`; nullptr: the same
  int tag_offset = 0;
  [[nodiscard]] int rank(int graph_rank) const {
    return rank_of == nullptr ? graph_rank : (*rank_of)[static_cast<std::size_t>(graph_rank)];
  }
};

namespace run_detail {
class PlanRun;
struct Buffers;
}  // namespace run_detail

// The vectors a run needs (requests, statuses, byte ranges...), kept between
// the calls of one scratch so that a call allocates none of them once its
// sizes have been seen. One run at a time.
class RunScratch {
 public:
  RunScratch();
  RunScratch(const RunScratch&) = delete;
  RunScratch& operator=(const RunScratch&) = delete;
  ~RunScratch();
  run_detail::Buffers& buffers();

 private:
  std::unique_ptr<run_detail::Buffers> buffers_;
};

// One call's run of the chosen variants of a plan, started and then advanced
// step by step (nonblocking calls) or to the end (blocking ones). Everything
// it is given must outlive it (the channel's rank map included).
// Always completes every posted message, and sends every forward even after
// an error, so that no peer waits forever.
namespace run_detail {
// A host-only call whose every block goes linear, without bundles: nothing
// is forwarded and no note travels, so PlanRun's bookkeeping (byte ranges
// and staging per fragment of every variant, the pending operations) buys
// nothing. It posts the messages PlanRun would post, in the same order (the
// linear fragments' receives, then this rank's own sends), and completes
// them with one Waitall (Testall when it must not block).
class LinearRun {
 public:
  LinearRun(const RunnablePlan& plan, const CallLayout& layout, Buffers& buffers, const Channel& channel)
      : plan_(plan), layout_(layout), buffers_(buffers), channel_(channel) {}
  void start();
  bool step(bool block);
  [[nodiscard]] int error() const { return error_; }

 private:
  const RunnablePlan& plan_;
  const CallLayout& layout_;
  Buffers& buffers_;
  Channel channel_;
  int error_ = MPI_SUCCESS;
  bool finished_ = false;
  bool reported_short_ = false;
};
}  // namespace run_detail

class PlanExecution {
 public:
  // A host-only call (`device` null) whose blocks all chose linear and whose
  // bundles stay home runs as a run_detail::LinearRun, any other as a PlanRun.
  PlanExecution(const RunnablePlan& plan, const CallChoice& choice, const CallLayout& layout, BundleStore& bundles,
                RunScratch& scratch, const Channel& channel, const DeviceRouting* device = nullptr);
  PlanExecution(const PlanExecution&) = delete;
  PlanExecution& operator=(const PlanExecution&) = delete;
  ~PlanExecution();
  void start();
  // `block`: may wait inside the MPI until the call is done. True once done.
  bool step(bool block);
  // MPI_SUCCESS or the first error seen.
  [[nodiscard]] int error() const;

 private:
  std::optional<run_detail::LinearRun> linear_;
  std::unique_ptr<run_detail::PlanRun> run_;
};

// Move every fragment of the chosen variants of `plan`. `device`: nullptr for
// host buffers. MPI_SUCCESS or the first error seen; every posted message
// is always completed, and every forward is sent even after an error, so
// that no peer waits forever.
int run_plan(const RunnablePlan& plan, const CallChoice& choice, const CallLayout& layout, BundleStore& bundles,
             const Channel& channel, const DeviceRouting* device = nullptr);

}  // namespace nbrcoll
