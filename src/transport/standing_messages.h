// The host fast path's messages kept as persistent requests (MPI_Recv_init,
// MPI_Send_init) for calls that repeat: a halo exchange makes the same call
// every iteration. Starting kept requests costs the MPI less than posting
// new ones (no argument checks, no request allocated and freed per
// message): with 4-8 ranks to a core that is a tenth of a small call
// (bench/results/repeats). A scratch keeps two sets, its receives and its sends,
// each standing for one key: the scratch's layout generation (sizes and
// displacements), the side's buffer, the channel and the tag window. Each
// side is kept on its own, so a call whose send buffer changes from call to
// call (PETSc's scatter of a Krylov basis vector into one ghost vector)
// still keeps its receives. A set is made on the third run in a row with
// its key and started on later ones: making one costs what posting does,
// and freeing it more, so a graph called twice and freed (DOLFINx makes
// dozens) would pay for a set it never starts again. Sets still standing
// at MPI_Finalize are freed there.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "transport/requests.h"

namespace nbrcoll {

struct StandingKey {
  std::uint64_t generation = 0;
  const void* buffer = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
  int tag_offset = 0;
  friend bool operator==(const StandingKey&, const StandingKey&) = default;
};

class StandingMessages {
 public:
  StandingMessages() = default;
  StandingMessages(const StandingMessages&) = delete;
  StandingMessages& operator=(const StandingMessages&) = delete;
  ~StandingMessages();

  // What this run does with the side's messages: starts the kept set
  // (kStart), makes the set and starts it (kKeep: the last kRunsBeforeKeeping
  // runs had this key too), or posts them plainly (kPost).
  enum class Use : std::uint8_t { kStart, kKeep, kPost };
  static constexpr int kRunsBeforeKeeping = 2;
  Use use_for(const StandingKey& key);
  // After kKeep: no set for this key; its runs post (kPost) until the key changes.
  void decline() { declined_ = true; }
  // Frees the old set and hands out an empty one to fill with persistent
  // requests (MpiRequests::add_plain).
  MpiRequests& rebuild(const StandingKey& key);
  // Starts every request of the set (MPI_Startall), in the order added.
  int start();
  [[nodiscard]] MpiRequests& requests() { return requests_; }
  // After a failed run: `copies` are the set's handles as the run completed
  // them (a failed request freed there is null); the set is freed, each
  // request once.
  void release_after(const MPI_Request* copies);
  // Frees every request (all inactive: no call is running on the set) and
  // forgets the key last seen.
  void release();

  // Every set still built, at MPI_Finalize (completion.cpp).
  static void release_all();

 private:
  MpiRequests requests_;
  StandingKey key_;
  StandingKey seen_;       // the last run's key
  int seen_runs_ = 0;      // runs in a row with it
  bool declined_ = false;  // no set for seen_ (decline)
  bool built_ = false;
};

}  // namespace nbrcoll
