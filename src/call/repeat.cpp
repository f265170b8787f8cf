#include "call/repeat.h"

#include <vector>

#include "call/type_watch.h"

namespace nbrcoll {

namespace {

// The user's array against decide()'s copy of it.
template <class Given, class T>
bool same_values(const Given* given, const std::vector<T>& kept) {
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (static_cast<T>(given[i]) != kept[i]) return false;
  }
  return true;
}

// Every type of the call marked (call/type_watch.h); false where one cannot be.
bool watch_types(const CallArgs& args) {
  if (!args.per_block) {
    // (A null type is an empty side's: call/arguments.cpp.)
    const auto watched = [](MPI_Datatype t) { return t == MPI_DATATYPE_NULL || watch_type(t); };
    return watched(args.sendtype) && (args.recvtype == args.sendtype || watched(args.recvtype));
  }
  const auto watch_side = [](const std::vector<MPI_Datatype>& types, const std::vector<int>& counts) {
    for (std::size_t j = 0; j < types.size(); ++j) {
      // A zero-count block moves nothing, and may name any type (even
      // MPI_DATATYPE_NULL) under an MPI that does not check it (call/arguments.cpp).
      if (counts[j] == 0 || (j > 0 && types[j] == types[j - 1] && counts[j - 1] != 0)) continue;
      if (!watch_type(types[j])) return false;
    }
    return true;
  };
  return watch_side(args.sendtypes, args.sendcounts) && watch_side(args.recvtypes, args.recvcounts);
}

// Alltoallw: the same counts, byte displacements and types, block by block.
bool same_blocks(const UserCall& c, const CallArgs& args) {
  if (c.w == nullptr) return false;
  if (!args.sendcounts.empty() && (c.sendcounts == nullptr || c.w->sdispls == nullptr || c.w->sendtypes == nullptr))
    return false;
  if (!args.recvcounts.empty() && (c.recvcounts == nullptr || c.w->rdispls == nullptr || c.w->recvtypes == nullptr))
    return false;
  return same_values(c.sendcounts, args.sendcounts) && same_values(c.w->sdispls, args.sdispls) &&
         same_values(c.w->sendtypes, args.sendtypes) && same_values(c.recvcounts, args.recvcounts) &&
         same_values(c.w->rdispls, args.displs) && same_values(c.w->recvtypes, args.recvtypes);
}

}  // namespace

void RepeatKey::remember(const UserCall& c, Mode mode, Algo algo, const CallArgs& args, const CallLayout& layout,
                         const Decision& d) {
  // Read before marking: a type that goes while the call is marked counts against it.
  types_gone_ = watched_types_gone();
  const bool typed = d.linear_everywhere;
  valid_ = c.large == nullptr && !layout.send_packed(typed) && !layout.recv_packed(typed) && watch_types(args);
  kind_ = c.kind;
  mode_ = mode;
  algo_ = algo;
  recvcount_ = c.recvcount;
  decision_ = d;
  decision_.repeat = true;
}

bool RepeatKey::matches(const UserCall& c, Mode mode, Algo algo, const CallArgs& args) const {
  if (!valid_ || c.kind != kind_ || mode != mode_ || algo != algo_ || c.large != nullptr) return false;
  if (c.sendtype != args.sendtype || c.recvtype != args.recvtype) return false;
  // Other buffers, but neither MPI_BOTTOM nor MPI_IN_PLACE where the last had a buffer.
  if (c.sendbuf == MPI_IN_PLACE || c.recvbuf == MPI_IN_PLACE) return false;
  if ((c.sendbuf == nullptr) != (args.sendbuf == nullptr) || (c.recvbuf == nullptr) != (args.recvbuf == nullptr))
    return false;
  if (c.kind == Kind::kAlltoallw) {
    if (!same_blocks(c, args)) return false;
  } else {
    if (c.variable()) {
      // Null arrays only where the side has no neighbours (call/arguments.cpp).
      if ((c.recvcounts == nullptr || c.rdispls == nullptr) && !args.recvcounts.empty()) return false;
      if (!same_values(c.recvcounts, args.recvcounts) || !same_values(c.rdispls, args.displs)) return false;
    } else if (c.recvcount != recvcount_) {
      return false;
    }
    if (c.kind == Kind::kAlltoallv) {
      if ((c.sendcounts == nullptr || c.sdispls == nullptr) && !args.sendcounts.empty()) return false;
      if (!same_values(c.sendcounts, args.sendcounts) || !same_values(c.sdispls, args.sdispls)) return false;
    } else if (c.sendcount != args.sendcount) {
      return false;
    }
  }
  // The same handles, and no type a remembered call named has gone since.
  return watched_types_gone() == types_gone_;
}

}  // namespace nbrcoll
