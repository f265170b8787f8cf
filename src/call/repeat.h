// The last call a scratch served, remembered so that the same call again
// skips its decision: a halo exchange repeats one call, same counts and
// types, every iteration, and the checks, block sizes and variants of the
// first hold for every later one. The buffers may differ (PETSc scatters a
// different Krylov vector each time): a block's size and variant never
// depend on where it lies; only MPI_BOTTOM (a null buffer) and
// MPI_IN_PLACE are told apart. Remembered only for the
// host fast path with both sides in place (nothing packed), never for a
// large-count or alltoallw call. A derived datatype is described again at
// every call (a freed handle may come back as another type); a repeat needs
// the same description.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "call/arguments.h"
#include "call/datatype.h"
#include "call/decision.h"
#include "call/user_call.h"

namespace nbrcoll {

class RepeatKey {
 public:
  // `algo`: the setting the decision was made under, as a number.
  void remember(const UserCall& c, Mode mode, int algo, const TypeLayout& send, const TypeLayout& recv,
                const Decision& d);
  void forget() { valid_ = false; }
  // Whether `c` repeats the remembered call, perhaps on other buffers;
  // `args` still holds what decide() filled for that call.
  [[nodiscard]] bool matches(const UserCall& c, Mode mode, int algo, const CallArgs& args) const;
  // The repeat `c` is the call remembered now.
  void moved_to(const UserCall& c) {
    sendbuf_ = c.sendbuf;
    recvbuf_ = c.recvbuf;
  }
  // Whether `c` is the remembered call's kind on its buffers (to pick a
  // scratch whose kept messages may serve).
  [[nodiscard]] bool may_match(const UserCall& c) const {
    return valid_ && c.kind == kind_ && c.sendbuf == sendbuf_ && c.recvbuf == recvbuf_;
  }
  [[nodiscard]] const Decision& decision() const { return decision_; }

 private:
  bool valid_ = false;
  Kind kind_ = Kind::kAllgather;
  Mode mode_ = Mode::kBlocking;
  int algo_ = 0;
  const void* sendbuf_ = nullptr;
  const void* recvbuf_ = nullptr;
  int sendcount_ = 0;
  int recvcount_ = 0;
  MPI_Datatype sendtype_ = MPI_DATATYPE_NULL;
  MPI_Datatype recvtype_ = MPI_DATATYPE_NULL;
  TypeLayout send_;
  TypeLayout recv_;
  Decision decision_;
};

}  // namespace nbrcoll
