#include "call/layout.h"

#include <algorithm>
#include <climits>

#include "transport/pack_view.h"

namespace nbrcoll {

namespace {

constexpr std::uint64_t kMaxPacked = INT_MAX;  // MPI_Pack / MPI_Unpack count bytes in an int

// How the blocks of a call are typed: the call's one send type and one
// receive type, displacements in elements of their extents (OneType) ...
struct OneType {
  const CallArgs& args;
  const TypeLayout& send;
  const TypeLayout& recv;
  [[nodiscard]] const TypeLayout& send_layout(std::size_t /*block*/) const { return send; }
  [[nodiscard]] const TypeLayout& recv_layout(std::size_t /*slot*/) const { return recv; }
  [[nodiscard]] MPI_Datatype send_type(std::size_t /*block*/) const { return args.sendtype; }
  [[nodiscard]] MPI_Datatype recv_type(std::size_t /*slot*/) const { return args.recvtype; }
  [[nodiscard]] int send_count(std::size_t block) const {
    return args.alltoall ? args.sendcounts[block] : args.sendcount;
  }
  [[nodiscard]] const char* send_start(std::size_t block) const {
    return offset_address(args.sendbuf, args.alltoall ? args.sdispls[block] * send.extent : 0);
  }
  [[nodiscard]] char* recv_start(std::size_t slot) const {
    return offset_address(args.recvbuf, args.displs[slot] * recv.extent);
  }
  [[nodiscard]] int recv_count(std::size_t slot) const { return args.recvcounts[slot]; }
  [[nodiscard]] bool recv_all_in_place() const { return recv.in_place; }
};

// ... or a type per block (alltoallw), displacements in bytes (PerBlock).
struct PerBlock {
  const CallArgs& args;
  bool any_recv_packed;
  [[nodiscard]] const TypeLayout& send_layout(std::size_t block) const { return args.send_layouts[block]; }
  [[nodiscard]] const TypeLayout& recv_layout(std::size_t slot) const { return args.recv_layouts[slot]; }
  [[nodiscard]] MPI_Datatype send_type(std::size_t block) const { return args.sendtypes[block]; }
  [[nodiscard]] MPI_Datatype recv_type(std::size_t slot) const { return args.recvtypes[slot]; }
  [[nodiscard]] int send_count(std::size_t block) const { return args.sendcounts[block]; }
  [[nodiscard]] const char* send_start(std::size_t block) const {
    return offset_address(args.sendbuf, args.sdispls[block]);
  }
  [[nodiscard]] char* recv_start(std::size_t slot) const { return offset_address(args.recvbuf, args.displs[slot]); }
  [[nodiscard]] int recv_count(std::size_t slot) const { return args.recvcounts[slot]; }
  [[nodiscard]] bool recv_all_in_place() const { return !any_recv_packed; }
};

// The send blocks in place where their type allows, else packed one after
// the other into `send_stage`; the receive slots in place, or in
// `recv_stage`. With `typed` (call/decision.h: linear_everywhere) every block
// is also described as the user gave it, and one that travels typed is
// neither packed nor staged: its byte address only where it lies in place.
// MPI_SUCCESS or an error (the caller makes the table hollow).
template <class Types>
int lay_out(const Types& t, const std::vector<int>& in_list, engine::BlockTable& table, std::vector<char>& send_stage,
            std::vector<char>& recv_stage, TypedBlocks* typed) {
  const std::vector<std::uint64_t>& send_bytes = table.send_bytes;
  const std::size_t blocks = send_bytes.size();
  table.send_data.assign(blocks, nullptr);
  if (typed != nullptr) {
    typed->sends.resize(blocks);
    for (std::size_t j = 0; j < blocks; ++j)
      typed->sends[j] = {t.send_start(j), t.send_count(j), t.send_type(j), travels_typed(send_bytes[j])};
  }
  // Packed: a block with bytes, not in place, that does not travel typed.
  const auto packed_send = [&](std::size_t j) {
    return !t.send_layout(j).in_place && send_bytes[j] > 0 && (typed == nullptr || !typed->sends[j].typed);
  };
  std::uint64_t packed = 0;
  for (std::size_t j = 0; j < blocks; ++j) {
    if (!packed_send(j)) continue;
    if (send_bytes[j] > kMaxPacked) return MPI_ERR_COUNT;
    packed += send_bytes[j];
  }
  send_stage.resize(packed);
  packed = 0;
  for (std::size_t j = 0; j < blocks; ++j) {
    const char* start = t.send_start(j);
    if (!packed_send(j)) {
      if (t.send_layout(j).in_place || send_bytes[j] == 0) table.send_data[j] = start;
      continue;
    }
    int position = 0;
    const PackView in(start, t.send_count(j), t.send_type(j));
    const int rc = PMPI_Pack(in.base(), in.count(), in.type(), send_stage.data() + packed,
                             static_cast<int>(send_bytes[j]), &position, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
    if (static_cast<std::uint64_t>(position) != send_bytes[j]) return MPI_ERR_INTERN;
    table.send_data[j] = send_stage.data() + packed;
    packed += send_bytes[j];
  }
  const std::vector<std::uint64_t>& slot_bytes = table.slot_bytes;
  const std::size_t slots = in_list.size();
  table.slot_data.assign(slots, nullptr);
  if (typed != nullptr) {
    typed->slots.assign(slots, TypedBuffer{});
    for (std::size_t i = 0; i < slots; ++i) {
      if (in_list[i] != MPI_PROC_NULL)
        typed->slots[i] = {t.recv_start(i), t.recv_count(i), t.recv_type(i), travels_typed(slot_bytes[i])};
    }
  }
  const auto staged_slot = [&](std::size_t i) {
    return !t.recv_layout(i).in_place && in_list[i] != MPI_PROC_NULL && (typed == nullptr || !typed->slots[i].typed);
  };
  std::uint64_t staged = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    if (staged_slot(i)) {
      if (slot_bytes[i] > kMaxPacked) return MPI_ERR_COUNT;
      staged += slot_bytes[i];
    }
  }
  if (!t.recv_all_in_place()) recv_stage.resize(staged);
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    if (in_list[i] == MPI_PROC_NULL) continue;
    if (t.recv_layout(i).in_place) {
      table.slot_data[i] = t.recv_start(i);
    } else if (staged_slot(i)) {
      table.slot_data[i] = recv_stage.data() + offset;
      offset += slot_bytes[i];
    }
  }
  return MPI_SUCCESS;
}

// Staged receive slots into the user's buffer.
template <class Types>
int unpack_slots(const Types& t, const CallArgs& args, const engine::BlockTable& table) {
  if (table.hollow || t.recv_all_in_place()) return MPI_SUCCESS;
  for (std::size_t i = 0; i < table.slot_data.size(); ++i) {
    if (table.slot_data[i] == nullptr || table.slot_bytes[i] == 0 || t.recv_layout(i).in_place) continue;
    int position = 0;
    const PackView out(t.recv_start(i), args.recvcounts[i], t.recv_type(i));
    const int rc = PMPI_Unpack(table.slot_data[i], static_cast<int>(table.slot_bytes[i]), &position, out.base(),
                               out.count(), out.type(), MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace

int CallLayout::measure(const CallArgs& args, const std::vector<int>& in_list) {
  blocks_.hollow = false;
  typed_mode_ = false;
  per_block_ = args.per_block;
  if (!per_block_) {
    // A null type names no block: an empty side (call/arguments.cpp).
    const auto describe = [](MPI_Datatype type, TypeLayout& out) {
      if (type != MPI_DATATYPE_NULL) return describe_type(type, out);
      out = TypeLayout{0, 0, true};
      return MPI_SUCCESS;
    };
    int rc = describe(args.sendtype, send_type_);
    if (rc != MPI_SUCCESS) return rc;
    rc = describe(args.recvtype, recv_type_);
    if (rc != MPI_SUCCESS) return rc;
  }
  // Alltoallw: every block's own type (described by acceptable()).
  const auto send_layout = [&](std::size_t j) -> const TypeLayout& {
    return per_block_ ? args.send_layouts[j] : send_type_;
  };
  const auto recv_layout = [&](std::size_t i) -> const TypeLayout& {
    return per_block_ ? args.recv_layouts[i] : recv_type_;
  };
  std::vector<std::uint64_t>& send = blocks_.send_bytes;
  send.resize(args.alltoall ? args.sendcounts.size() : 1);
  any_send_packed_ = false;
  typed_send_packed_ = false;
  for (std::size_t j = 0; j < send.size(); ++j) {
    const int count = args.alltoall ? args.sendcounts[j] : args.sendcount;
    send[j] = static_cast<std::uint64_t>(count) * send_layout(j).size;
    const bool packs = send[j] > 0 && !send_layout(j).in_place;
    any_send_packed_ = any_send_packed_ || packs;
    typed_send_packed_ = typed_send_packed_ || (packs && !travels_typed(send[j]));
  }
  const std::size_t slots = in_list.size();
  blocks_.slot_bytes.assign(slots, 0);
  any_recv_packed_ = false;
  typed_recv_packed_ = false;
  for (std::size_t i = 0; i < slots; ++i) {
    blocks_.slot_bytes[i] = static_cast<std::uint64_t>(args.recvcounts[i]) * recv_layout(i).size;
    const bool staged = in_list[i] != MPI_PROC_NULL && !recv_layout(i).in_place;
    any_recv_packed_ = any_recv_packed_ || staged;
    const std::uint64_t bytes = blocks_.slot_bytes[i];
    typed_recv_packed_ = typed_recv_packed_ || (staged && bytes > 0 && !travels_typed(bytes));
  }
  return MPI_SUCCESS;
}

void CallLayout::make_hollow() {
  blocks_.hollow = true;
  typed_mode_ = false;  // a hollow rank's messages are empty bytes
  blocks_.send_data.assign(blocks_.send_bytes.size(), nullptr);
  std::fill(blocks_.send_bytes.begin(), blocks_.send_bytes.end(), 0);
  blocks_.slot_data.assign(blocks_.slot_bytes.size(), nullptr);
  std::fill(blocks_.slot_bytes.begin(), blocks_.slot_bytes.end(), 0);
}

int CallLayout::prepare(const CallArgs& args, const std::vector<int>& in_list, bool typed) {
  typed_mode_ = typed;
  TypedBlocks* table = typed ? &typed_ : nullptr;
  const int rc =
      per_block_ ? lay_out(PerBlock{args, any_recv_packed_}, in_list, blocks_, send_stage_, recv_stage_, table)
                 : lay_out(OneType{args, send_type_, recv_type_}, in_list, blocks_, send_stage_, recv_stage_, table);
  if (rc != MPI_SUCCESS) make_hollow();
  return rc;
}

int CallLayout::unpack(const CallArgs& args) const {
  return per_block_ ? unpack_slots(PerBlock{args, any_recv_packed_}, args, blocks_)
                    : unpack_slots(OneType{args, send_type_, recv_type_}, args, blocks_);
}

}  // namespace nbrcoll
