// The last call a scratch served, remembered so that the same call again
// skips its decision: a halo exchange repeats one call, same counts and
// types, every iteration, and the checks, block sizes and variants of the
// first hold for every later one. The buffers may differ (PETSc scatters a
// different Krylov vector each time): a block's size and variant never
// depend on where it lies; only MPI_BOTTOM (a null buffer) and
// MPI_IN_PLACE are told apart. Remembered only for the
// host fast path with nothing packed (both sides in place, or every block
// sent typed), never for a large-count call. The datatypes are trusted by
// handle while no type a remembered call named has gone (call/type_watch.h):
// a freed handle may come back as another type.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "call/arguments.h"
#include "call/decision.h"
#include "call/layout.h"
#include "call/user_call.h"
#include "support/config.h"

namespace nbrcoll {

// The call itself stays in the scratch (its CallArgs and CallLayout, as
// decide() filled them); this is what they do not hold.
class RepeatKey {
 public:
  // `algo`: the setting the decision was made under; `args` and `layout`
  // as decide() filled them for `c`.
  void remember(const UserCall& c, Mode mode, Algo algo, const CallArgs& args, const CallLayout& layout,
                const Decision& d);
  void forget() { valid_ = false; }
  // Whether `c` repeats the remembered call, perhaps on other buffers;
  // `args` still holds what decide() filled for that call.
  [[nodiscard]] bool matches(const UserCall& c, Mode mode, Algo algo, const CallArgs& args) const;
  // Whether `c` is the remembered call's kind on its buffers (to pick a
  // scratch whose kept messages may serve).
  [[nodiscard]] bool may_match(const UserCall& c, const CallArgs& args) const {
    return valid_ && c.kind == kind_ && c.sendbuf == args.sendbuf && c.recvbuf == args.recvbuf;
  }
  [[nodiscard]] const Decision& decision() const { return decision_; }

 private:
  bool valid_ = false;
  Kind kind_ = Kind::kAllgather;
  Mode mode_ = Mode::kBlocking;
  Algo algo_;
  int recvcount_ = 0;             // CallArgs keeps it per slot only
  std::uint64_t types_gone_ = 0;  // watched_types_gone() when remembered
  Decision decision_;
};

}  // namespace nbrcoll
