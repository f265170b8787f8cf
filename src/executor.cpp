#include "executor.h"

#include <algorithm>
#include <climits>
#include <cstring>

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

// One posted message: which fragment, which chunk.
struct Pending {
  bool is_recv = false;
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

int CallLayout::finish(const CallArgs& args, const std::vector<algos::LocalCopy>& copies) {
  for (const algos::LocalCopy& c : copies) {
    const std::uint64_t bytes = std::min(block_bytes(*this, c.from_slot), slot_bytes(c.to_slot));
    if (bytes > 0) std::memmove(slot_data(c.to_slot), block_data(*this, c.from_slot), bytes);
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

RunnablePlan make_runnable(algos::Plan plan) {
  RunnablePlan r;
  r.forwards.resize(plan.recvs.size());
  for (std::size_t i = 0; i < plan.sends.size(); ++i) {
    const int after = plan.sends[i].after_recv;
    if (after >= 0) r.forwards[static_cast<std::size_t>(after)].push_back(static_cast<int>(i));
  }
  r.plan = std::move(plan);
  return r;
}

int run_plan(const RunnablePlan& runnable, const CallLayout& layout, MPI_Comm comm, std::uint64_t chunk) {
  const algos::Plan& plan = runnable.plan;
  chunk = std::clamp<std::uint64_t>(chunk, 1, INT_MAX);
  std::vector<MPI_Request> requests;
  std::vector<Pending> pending;
  // Byte range of every fragment for this call's block sizes (empty: skipped on both ends).
  std::vector<algos::ByteRange> recv_range(plan.recvs.size());
  std::vector<algos::ByteRange> send_range(plan.sends.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < plan.recvs.size(); ++i) {
    const algos::Recv& r = plan.recvs[i];
    recv_range[i] = algos::share_bytes(r.share, layout.slot_bytes(r.slot));
    total += chunks_of(recv_range[i].size(), chunk);
  }
  for (std::size_t i = 0; i < plan.sends.size(); ++i) {
    const algos::Send& s = plan.sends[i];
    send_range[i] = algos::share_bytes(s.share, block_bytes(layout, s.slot));
    total += chunks_of(send_range[i].size(), chunk);
  }
  requests.reserve(total);
  pending.reserve(total);

  int first_error = MPI_SUCCESS;
  auto note = [&first_error](int rc) {
    if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS) first_error = rc;
  };
  auto piece = [chunk](const algos::ByteRange& range, std::uint64_t c) {
    const std::uint64_t begin = range.begin + c * chunk;
    return std::pair<std::uint64_t, int>(begin, static_cast<int>(std::min(chunk, range.end - begin)));
  };
  auto post_send_chunk = [&](int s, std::uint64_t c) {
    const algos::Send& send = plan.sends[static_cast<std::size_t>(s)];
    const auto [begin, bytes] = piece(send_range[static_cast<std::size_t>(s)], c);
    requests.emplace_back();
    pending.push_back({false, s, c});
    note(PMPI_Isend(block_data(layout, send.slot) + begin, bytes, MPI_BYTE, send.peer, send.tag, comm,
                    &requests.back()));
  };

  // Every receive is posted before any send, so no order of arrival can deadlock.
  for (std::size_t i = 0; i < plan.recvs.size(); ++i) {
    const algos::Recv& r = plan.recvs[i];
    for (std::uint64_t c = 0; c < chunks_of(recv_range[i].size(), chunk); ++c) {
      const auto [begin, bytes] = piece(recv_range[i], c);
      requests.emplace_back();
      pending.push_back({true, static_cast<int>(i), c});
      note(PMPI_Irecv(layout.slot_data(r.slot) + begin, bytes, MPI_BYTE, r.peer, r.tag, comm, &requests.back()));
    }
  }
  for (std::size_t i = 0; i < plan.sends.size(); ++i) {
    if (plan.sends[i].after_recv >= 0) continue;
    for (std::uint64_t c = 0; c < chunks_of(send_range[i].size(), chunk); ++c) post_send_chunk(static_cast<int>(i), c);
  }

  // Progress loop: a forward of chunk c goes out once chunk c of its source
  // arrived. Chunks of one fragment share a tag and MPI matches them in
  // posting order, so a forward posts its chunks strictly in order even when
  // Waitsome reports the source's chunks out of order.
  std::vector<std::vector<bool>> arrived(plan.recvs.size());
  for (std::size_t i = 0; i < plan.recvs.size(); ++i) arrived[i].assign(chunks_of(recv_range[i].size(), chunk), false);
  std::vector<std::uint64_t> next_chunk(plan.sends.size(), 0);
  std::vector<int> done(total);
  std::size_t settled = 0;
  while (settled < requests.size()) {
    int count = 0;
    const int rc =
        PMPI_Waitsome(static_cast<int>(requests.size()), requests.data(), &count, done.data(), MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
      note(rc);
      // Errors in requests: give up forwarding, but let everything posted settle.
      for (MPI_Request& r : requests) {
        if (r != MPI_REQUEST_NULL) PMPI_Cancel(&r);
      }
      PMPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
      break;
    }
    if (count == MPI_UNDEFINED) break;
    settled += static_cast<std::size_t>(count);
    for (int k = 0; k < count; ++k) {
      const Pending p = pending[static_cast<std::size_t>(done[static_cast<std::size_t>(k)])];
      if (!p.is_recv) continue;
      const auto r = static_cast<std::size_t>(p.fragment);
      arrived[r][p.chunk] = true;
      for (int s : runnable.forwards[r]) {
        std::uint64_t& next = next_chunk[static_cast<std::size_t>(s)];
        while (next < arrived[r].size() && arrived[r][next]) post_send_chunk(s, next++);
      }
    }
  }
  return first_error;
}

}  // namespace nbrcoll
