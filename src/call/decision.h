// What decide() (decide.h) says a call does: handed to the MPI, with the
// reason, or run by nbrcoll on a path and a transport. Kept apart from
// decide() so that a call's scratch (scratch.h) can keep the decision of
// the call it last served.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace nbrcoll {

// How a call nbrcoll runs is run.
enum class Path : std::uint8_t {
  kLinear,  // the host fast path (transport/linear_run.h): every block linear, no bundles, nothing forwarded
  kEngine,  // the schedule engine (engine/engine.h)
};
enum class TransportKind : std::uint8_t {
  kHost,    // PMPI point-to-point on the buffers (transport/host.h)
  kDevice,  // a process with a GPU runtime: routes per fragment, notes, IPC (transport/device/)
};

// Why a call goes to the MPI as it is (kNone: nbrcoll runs it); in words:
// handoff_text() (decide.cpp). The run report counts calls by these.
enum class Handoff : std::uint8_t {
  kNone,
  kDisabled,           // NBRCOLL_DISABLE=1
  kNotSetUp,           // a communicator nbrcoll holds no state for
  kNative,             // NBRCOLL_ALGO=native
  kLargeCount,         // a count or displacement beyond int
  kArgumentError,      // the MPI reports it
  kNoChannel,          // a duplicate without a tag block or communicator
  kDeviceAlltoall,     // alltoall in a process with a GPU runtime
  kDeviceNonblocking,  // nonblocking or persistent in a process with a GPU runtime
  kNullRequest,        // a nonblocking or persistent call without a request to fill
  kMpiLinear,          // auto, linear by rule on a graph whose own collective the MPI gets right
};
inline constexpr unsigned kHandoffCount = 11;
const char* handoff_text(Handoff why);

struct Decision {
  // kNone: nbrcoll runs the call; else why it goes to the MPI as it is.
  Handoff handoff = Handoff::kNone;
  // The error of a datatype query while sizing the blocks: the call fails
  // with it (the same way on every rank of a correct program).
  int error = MPI_SUCCESS;
  Path path = Path::kEngine;
  TransportKind transport = TransportKind::kHost;
  const char* why = "";  // why these variants
  // Every rank runs the call on the host fast path by a rule they all share
  // (the setting, the mode, the graph's node count or its linear-only
  // set-up, a tuner that gives linear to every size; never a block size):
  // its messages carry the user's own datatypes, nothing packed
  // (transport/typed_blocks.h): every peer
  // receives them by the same rule, so no block meets a receiver that takes
  // it as bytes.
  bool linear_everywhere = false;
  // The arguments are those of the last call on this scratch but perhaps
  // the buffers (call/repeat.h): its decision and block sizes hold, and
  // with `same_buffers` its whole layout.
  bool repeat = false;
  bool same_buffers = false;
  // auto's measured choice (call/tuning.h) chose the variants, in the
  // tuner's epoch `tune_epoch` (a repeat holds only within it); `trial`:
  // some block ran a variant on trial, and the call's time is its measure.
  bool tuned = false;
  bool trial = false;
  // Tuned while the tuner tries: the variants may change at the next call.
  bool trying = false;
  std::uint64_t tune_epoch = 0;
  [[nodiscard]] bool taken() const { return handoff == Handoff::kNone; }
};

}  // namespace nbrcoll
