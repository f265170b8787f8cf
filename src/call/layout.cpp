#include "call/layout.h"

#include <algorithm>
#include <climits>

namespace nbrcoll {

namespace {

constexpr std::uint64_t kMaxPacked = INT_MAX;  // MPI_Pack / MPI_Unpack count bytes in an int

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

}  // namespace

int CallLayout::measure(const CallArgs& args, const std::vector<int>& in_list) {
  blocks_.hollow = false;
  int rc = describe_type(args.sendtype, send_type_);
  if (rc != MPI_SUCCESS) return rc;
  rc = describe_type(args.recvtype, recv_type_);
  if (rc != MPI_SUCCESS) return rc;
  std::vector<std::uint64_t>& send = blocks_.send_bytes;
  if (args.alltoall) {
    send.resize(args.sendcounts.size());
    for (std::size_t j = 0; j < send.size(); ++j)
      send[j] = static_cast<std::uint64_t>(args.sendcounts[j]) * send_type_.size;
  } else {
    send.assign(1, static_cast<std::uint64_t>(args.sendcount) * send_type_.size);
  }
  const std::size_t slots = in_list.size();
  blocks_.slot_bytes.assign(slots, 0);
  for (std::size_t i = 0; i < slots; ++i)
    blocks_.slot_bytes[i] = static_cast<std::uint64_t>(args.recvcounts[i]) * recv_type_.size;
  return MPI_SUCCESS;
}

void CallLayout::make_hollow() {
  blocks_.hollow = true;
  blocks_.send_data.assign(blocks_.send_bytes.size(), nullptr);
  std::fill(blocks_.send_bytes.begin(), blocks_.send_bytes.end(), 0);
  blocks_.slot_data.assign(blocks_.slot_bytes.size(), nullptr);
  std::fill(blocks_.slot_bytes.begin(), blocks_.slot_bytes.end(), 0);
}

int CallLayout::prepare(const CallArgs& args, const std::vector<int>& in_list) {
  const auto fail = [this](int rc) {
    make_hollow();
    return rc;
  };
  // Send blocks: in place where the type allows, else packed one after the other.
  const std::vector<std::uint64_t>& send_bytes = blocks_.send_bytes;
  const std::size_t blocks = send_bytes.size();
  blocks_.send_data.assign(blocks, nullptr);
  std::uint64_t packed = 0;
  for (std::size_t j = 0; j < blocks; ++j) {
    if (send_type_.in_place || send_bytes[j] == 0) continue;
    if (send_bytes[j] > kMaxPacked) return fail(MPI_ERR_COUNT);
    packed += send_bytes[j];
  }
  send_stage_.resize(packed);
  packed = 0;
  for (std::size_t j = 0; j < blocks; ++j) {
    const int count = args.alltoall ? args.sendcounts[j] : args.sendcount;
    const char* start = offset_address(args.sendbuf, args.alltoall ? args.sdispls[j] * send_type_.extent : 0);
    if (send_type_.in_place || send_bytes[j] == 0) {
      blocks_.send_data[j] = start;
      continue;
    }
    int position = 0;
    const PackView in(start, count, args.sendtype);
    const int rc = PMPI_Pack(in.base(), in.count(), in.type(), send_stage_.data() + packed,
                             static_cast<int>(send_bytes[j]), &position, MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return fail(rc);
    if (static_cast<std::uint64_t>(position) != send_bytes[j]) return fail(MPI_ERR_INTERN);
    blocks_.send_data[j] = send_stage_.data() + packed;
    packed += send_bytes[j];
  }
  const std::vector<std::uint64_t>& slot_bytes = blocks_.slot_bytes;
  const std::size_t slots = in_list.size();
  blocks_.slot_data.assign(slots, nullptr);
  std::uint64_t staged = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    if (!recv_type_.in_place && in_list[i] != MPI_PROC_NULL) {
      if (slot_bytes[i] > kMaxPacked) return fail(MPI_ERR_COUNT);
      staged += slot_bytes[i];
    }
  }
  if (!recv_type_.in_place) recv_stage_.resize(staged);
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < slots; ++i) {
    if (in_list[i] == MPI_PROC_NULL) continue;
    if (recv_type_.in_place) {
      blocks_.slot_data[i] = offset_address(args.recvbuf, args.displs[i] * recv_type_.extent);
    } else {
      blocks_.slot_data[i] = recv_stage_.data() + offset;
      offset += slot_bytes[i];
    }
  }
  return MPI_SUCCESS;
}

int CallLayout::unpack(const CallArgs& args) const {
  if (blocks_.hollow || recv_type_.in_place) return MPI_SUCCESS;
  for (std::size_t i = 0; i < blocks_.slot_data.size(); ++i) {
    if (blocks_.slot_data[i] == nullptr || blocks_.slot_bytes[i] == 0) continue;
    int position = 0;
    const PackView out(offset_address(args.recvbuf, args.displs[i] * recv_type_.extent), args.recvcounts[i],
                       args.recvtype);
    const int rc = PMPI_Unpack(blocks_.slot_data[i], static_cast<int>(blocks_.slot_bytes[i]), &position, out.base(),
                               out.count(), out.type(), MPI_COMM_SELF);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace nbrcoll
