#include "call/repeat.h"

#include <vector>

namespace nbrcoll {

namespace {

bool same_layout(const TypeLayout& a, const TypeLayout& b) {
  return a.size == b.size && a.extent == b.extent && a.in_place == b.in_place;
}

// A type described now as it was then.
bool described_alike(MPI_Datatype type, const TypeLayout& then) {
  TypeLayout now;
  return describe_type(type, now) == MPI_SUCCESS && same_layout(now, then);
}

// The user's int array against decide()'s copy of it.
template <class T>
bool same_values(const int* given, const std::vector<T>& kept) {
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (static_cast<T>(given[i]) != kept[i]) return false;
  }
  return true;
}

}  // namespace

void RepeatKey::remember(const UserCall& c, Mode mode, int algo, const TypeLayout& send, const TypeLayout& recv,
                         const Decision& d) {
  valid_ = c.large == nullptr && c.kind != Kind::kAlltoallw && send.in_place && recv.in_place;
  kind_ = c.kind;
  mode_ = mode;
  algo_ = algo;
  sendbuf_ = c.sendbuf;
  recvbuf_ = c.recvbuf;
  sendcount_ = c.sendcount;
  recvcount_ = c.recvcount;
  sendtype_ = c.sendtype;
  recvtype_ = c.recvtype;
  send_ = send;
  recv_ = recv;
  decision_ = d;
  decision_.repeat = true;
}

bool RepeatKey::matches(const UserCall& c, Mode mode, int algo, const CallArgs& args) const {
  if (!valid_ || c.kind != kind_ || mode != mode_ || algo != algo_ || c.large != nullptr) return false;
  if (c.sendtype != sendtype_ || c.recvtype != recvtype_) return false;
  // Other buffers, but neither MPI_BOTTOM nor MPI_IN_PLACE where the last had a buffer.
  if (c.sendbuf == MPI_IN_PLACE || c.recvbuf == MPI_IN_PLACE) return false;
  if ((c.sendbuf == nullptr) != (sendbuf_ == nullptr) || (c.recvbuf == nullptr) != (recvbuf_ == nullptr)) return false;
  if (c.variable()) {
    if (c.recvcounts == nullptr || c.rdispls == nullptr) return false;
    if (!same_values(c.recvcounts, args.recvcounts) || !same_values(c.rdispls, args.displs)) return false;
  } else if (c.recvcount != recvcount_) {
    return false;
  }
  if (c.kind == Kind::kAlltoallv) {
    if (c.sendcounts == nullptr || c.sdispls == nullptr) return false;
    if (!same_values(c.sendcounts, args.sendcounts) || !same_values(c.sdispls, args.sdispls)) return false;
  } else if (c.sendcount != sendcount_) {
    return false;
  }
  return described_alike(c.sendtype, send_) && described_alike(c.recvtype, recv_);
}

}  // namespace nbrcoll
