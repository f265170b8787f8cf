// Tags on the process-wide communicator (shared_comm.h). Every graph
// communicator handle nbrcoll serves there owns a block of kTagBlock tags:
// its calls' windows of plan tags, as many note tags above them, and its IPC
// ack tag, the block's last. A graph gets a serial at creation (shared_comm.h
// says how every rank agrees on it) and kHandlesPerGraph blocks: handle 0 is
// the graph itself, its duplicates and theirs take the others in heap order
// (the k-th duplicate of handle h is h * kDupBranching + k), so every rank
// numbers a duplicate alike without asking anybody: MPI makes every rank
// duplicate one communicator in the same order. Pure; unit-tested.
#pragma once

#include <algorithm>
#include <cstdint>

namespace nbrcoll {

inline constexpr long long kTagBlock = 4096;
inline constexpr int kHandlesPerGraph = 16;
inline constexpr int kDupBranching = 4;

// How many graph serials fit below `tag_ub` (MPI_TAG_UB): serials 0 to
// this - 1 have all their blocks' tags at or below it.
inline std::int64_t graph_serials(long long tag_ub) {
  return tag_ub < 0 ? 0 : (tag_ub + 1) / kTagBlock / kHandlesPerGraph;
}

// The handle of the k-th duplicate (k from 1) of handle `parent`, or -1
// when it has no block (its calls go to the MPI's own collectives).
inline int duplicate_handle(int parent, int k) {
  if (parent < 0 || k < 1 || k > kDupBranching) return -1;
  const long long h = static_cast<long long>(parent) * kDupBranching + k;
  return h < kHandlesPerGraph ? static_cast<int>(h) : -1;
}

// First tag of handle `handle` of graph `serial`.
inline long long tag_block_base(std::int64_t serial, int handle) {
  return (serial * kHandlesPerGraph + handle) * kTagBlock;
}

// Calls in flight together on one handle whose plan tags are below
// `stride`, so that windows * stride plan tags, as many note tags and one
// ack tag fit in `tags` tags; at most `most`; 0 when not even one fits.
inline int tag_windows_within(long long tags, int stride, int most) {
  if (stride < 1 || tags < 1) return 0;
  return static_cast<int>(std::min<long long>((tags - 1) / (2LL * stride), most));
}

}  // namespace nbrcoll
