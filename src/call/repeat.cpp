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

void RepeatKey::remember(const UserCall& c, Mode mode, Algo algo, const CallLayout& layout, const Decision& d) {
  valid_ = c.large == nullptr && c.kind != Kind::kAlltoallw && !layout.send_packed() && !layout.recv_packed();
  kind_ = c.kind;
  mode_ = mode;
  algo_ = algo;
  recvcount_ = c.recvcount;
  decision_ = d;
  decision_.repeat = true;
}

bool RepeatKey::matches(const UserCall& c, Mode mode, Algo algo, const CallArgs& args, const CallLayout& layout) const {
  if (!valid_ || c.kind != kind_ || mode != mode_ || algo != algo_ || c.large != nullptr) return false;
  if (c.sendtype != args.sendtype || c.recvtype != args.recvtype) return false;
  // Other buffers, but neither MPI_BOTTOM nor MPI_IN_PLACE where the last had a buffer.
  if (c.sendbuf == MPI_IN_PLACE || c.recvbuf == MPI_IN_PLACE) return false;
  if ((c.sendbuf == nullptr) != (args.sendbuf == nullptr) || (c.recvbuf == nullptr) != (args.recvbuf == nullptr))
    return false;
  if (c.variable()) {
    if (c.recvcounts == nullptr || c.rdispls == nullptr) return false;
    if (!same_values(c.recvcounts, args.recvcounts) || !same_values(c.rdispls, args.displs)) return false;
  } else if (c.recvcount != recvcount_) {
    return false;
  }
  if (c.kind == Kind::kAlltoallv) {
    if (c.sendcounts == nullptr || c.sdispls == nullptr) return false;
    if (!same_values(c.sendcounts, args.sendcounts) || !same_values(c.sdispls, args.sdispls)) return false;
  } else if (c.sendcount != args.sendcount) {
    return false;
  }
  return described_alike(c.sendtype, layout.send_type()) && described_alike(c.recvtype, layout.recv_type());
}

}  // namespace nbrcoll
