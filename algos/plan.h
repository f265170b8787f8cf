// The communication plan of one rank for one graph communicator: the single
// data structure shared by the planners (linear, leader), the whole-communicator
// simulator, the MPI executor and the benchmarks.
//
// A plan is built once per communicator and is independent of the block size:
// every byte range is a Share (integer weights) that turns into bytes with
// share_bytes() for the block size of the call. Sender, forwarders and
// receivers evaluate the same integers, so they agree to the byte.
#pragma once

#include <compare>
#include <cstdint>
#include <utility>
#include <vector>

namespace nbrcoll::algos {

// Rank number that stands for MPI_PROC_NULL inside algos/ (which never sees MPI).
inline constexpr int kNoRank = -1;

// Split points are rounded down to this many bytes so that large fragments
// start aligned; blocks smaller than it travel as one fragment.
inline constexpr std::uint64_t kSplitAlignment = 64;

// The part [lo, hi) out of `total` equal-weight units of a block.
// The whole block is {0, 1, 1}.
struct Share {
  std::uint32_t lo = 0;
  std::uint32_t hi = 1;
  std::uint32_t total = 1;
  friend bool operator==(const Share&, const Share&) = default;
};

struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  [[nodiscard]] std::uint64_t size() const { return end - begin; }
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

// Byte offset of weight point w out of total for a block of `block` bytes:
// floor(block * w / total) rounded down to kSplitAlignment, with cut(total) =
// block exactly. Monotone in w, so shares of one split never overlap and
// together cover the block. Exact integer arithmetic (no overflow for blocks
// below 2^64 / 2^32 bytes... computed in 128 bits).
// Inline: the cost rows and every call evaluate them per fragment.
std::uint64_t split_point_wide(std::uint64_t block, std::uint32_t w, std::uint32_t total);
inline std::uint64_t split_point(std::uint64_t block, std::uint32_t w, std::uint32_t total) {
  if (total == 0 || w >= total) return block;
  if (w == 0) return 0;
  if (block > UINT32_MAX) return split_point_wide(block, w, total);
  const std::uint64_t exact = block * w / total;  // fits 64 bits for blocks below 4 GiB
  return exact - exact % kSplitAlignment;
}
inline ByteRange share_bytes(const Share& share, std::uint64_t block) {
  return {split_point(block, share.lo, share.total), split_point(block, share.hi, share.total)};
}

// For each entry of `list`, how many equal entries come before it: the k of
// "the k-th occurrence of a peer" that pairs duplicate edges (MPI's rule).
// O(n log n) (short lists: a direct count), no per-entry allocation.
std::vector<int> occurrence_numbers(const std::vector<int>& list);
// The same into `k`, whose capacity serves again (a planner walking many
// lists).
void occurrence_numbers(const std::vector<int>& list, std::vector<int>& k);

// Each origin's home slot: its first slot in an in-list (kNoRank entries
// skipped). The leader plan receives a block there; both forwarding
// planners copy it from there to the origin's other slots (duplicate edges).
class HomeSlots {
 public:
  explicit HomeSlots(const std::vector<int>& in);
  // The home slot of `origin`, or -1 where the list does not name it.
  [[nodiscard]] int find(int origin) const;

 private:
  std::vector<std::pair<int, int>> first_;  // (origin, home slot), by origin
};

// Which receive slot the alltoall block of an out-edge fills where a rank
// names one peer more than once (duplicate edges, or a periodic Cartesian
// dimension of 1 or 2 processes). Allgather blocks are all alike, so only
// alltoall(v) depends on it.
enum class EdgePairing : std::uint8_t {
  // Distributed graphs and MPI_Graph_create: the k-th occurrence of d in
  // s's out-list fills the k-th occurrence of s in d's in-list (messages
  // between one pair match in order).
  kListOrder,
  // Cartesian communicators (MPI-4.1 section 8.6, Example 8.10; MPI Forum
  // issue 153): both lists are (-1, +1) pairs, one per dimension, and the
  // block a rank sends towards -1 in a dimension arrives from +1 at the
  // receiver and vice versa: out-edge j fills the receiver's slot j ^ 1.
  kCartesian,
};

// Per entry of a rank's out-list: the k such that the entry's block fills
// the k-th occurrence of this rank in the receiver's in-list (kNoRank
// entries: their own occurrence number). kListOrder: occurrence_numbers(out).
// kCartesian: the receiver's lists mirror the sender's per dimension (it
// names the sender at slot i exactly where the sender names it at i ^ 1),
// so the k of out-edge j is the occurrence number of entry j ^ 1 where that
// entry names the same peer (a dimension whose -1 and +1 neighbours are
// one rank: the pair's two blocks cross), else of entry j.
std::vector<int> receiver_occurrences(const std::vector<int>& out, EdgePairing pairing);
void receiver_occurrences(const std::vector<int>& out, EdgePairing pairing, std::vector<int>& k);  // into `k`

// How a fragment travels, for statistics and the cost model.
enum class LinkClass : std::uint8_t {
  kSameDevice,   // two ranks on one GCD
  kSamePackage,  // the two GCDs of one package (MI250X: 4 xGMI links)
  kLinked,       // GCDs with a direct link, other packages
  kMultiHop,     // same node, no direct link
  kNetwork,      // different nodes
};
inline constexpr int kLinkClassCount = 5;
const char* link_class_name(LinkClass c);

// Receive `share` of `origin`'s block from `peer` into the receive slot
// `slot` (index into this rank's in-list). The leader plan always receives
// into the block's home slot (its first slot) and copies to duplicate slots;
// the linear plan, like MPI, receives one message per slot.
struct Recv {
  int peer = kNoRank;
  int origin = kNoRank;
  Share share;
  int slot = 0;
  int tag = 0;
  LinkClass link = LinkClass::kNetwork;
  friend bool operator==(const Recv&, const Recv&) = default;
};

// Send `share` of `origin`'s block to `peer`. The bytes come from the send
// buffer when origin is this rank (after_recv == -1), else from receive slot
// `slot`, once recvs[after_recv] (which carries exactly this share) arrived.
struct Send {
  int peer = kNoRank;
  int origin = kNoRank;
  Share share;
  int slot = -1;        // -1: the send buffer
  int after_recv = -1;  // index into Plan::recvs, or -1: no dependency
  int tag = 0;
  LinkClass link = LinkClass::kNetwork;
  // Alltoall plans: the index of the out-edge whose own send block this
  // carries (every out-edge has a block of its own); -1 in allgather plans.
  int out_edge = -1;
  friend bool operator==(const Send&, const Send&) = default;
};

// Copy a whole block within this rank once it is complete: from the send
// buffer (from_slot == -1: a self edge) or from the home slot of a block that
// arrives once and fills several slots (duplicate edges).
struct LocalCopy {
  int from_slot = -1;
  int to_slot = 0;
  int from_out_edge = -1;  // alltoall plans: the send block of this out-edge (a self edge)
  friend bool operator==(const LocalCopy&, const LocalCopy&) = default;
};

// Aggregated plans move the blocks of many edges in one message, a bundle.
// Every rank that handles a block names it the same way:
//   allgather: {origin, -1, 0}, the origin's block;
//   alltoall:  {origin, dest, k}, the block that fills the k-th occurrence
//              of origin in dest's in-list: the out-edge of origin that
//              receiver_occurrences() pairs with it (with kListOrder the k-th
//              occurrence of dest in origin's out-list).
struct BlockId {
  int origin = kNoRank;
  int dest = -1;
  int k = 0;
  // clang-tidy 14 reads the defaulted comparison's `0` as a null pointer.
  friend auto operator<=>(const BlockId&, const BlockId&) = default;  // NOLINT(modernize-use-nullptr)
};

// Where a piece of a bundle this rank sends comes from.
// A piece a call moves by another variant (see mixed_plan.h): sent, and
// expected, as absent.
inline constexpr int kPieceAbsent = -2;

struct PieceSource {
  // Index into Plan::bundle_recvs that brought it; -1: this rank's own send
  // block; kPieceAbsent: this rank's own block, moved by another variant.
  int bundle = -1;
  int piece = -1;     // the piece's index in that bundle
  int out_edge = -1;  // own alltoall block: its out-edge (own allgather block: -1)
  friend bool operator==(const PieceSource&, const PieceSource&) = default;
};

// Receive one bundle from `peer`: its pieces in this order. A piece with a
// slot >= 0 fills that receive slot here; every piece may be carried on by
// bundle sends (PieceSource::bundle names this bundle).
struct BundleRecv {
  int peer = kNoRank;
  int tag = 0;
  LinkClass link = LinkClass::kNetwork;
  std::vector<BlockId> pieces;
  // Per piece: the receive slot it fills, -1 (none here), or kPieceAbsent
  // (a slot piece this call moves by another variant: it must come absent).
  std::vector<int> slot;
  friend bool operator==(const BundleRecv&, const BundleRecv&) = default;
};

// Send one bundle to `peer` once every bundle its pieces come from arrived.
struct BundleSend {
  int peer = kNoRank;
  int tag = 0;
  LinkClass link = LinkClass::kNetwork;
  std::vector<BlockId> pieces;
  std::vector<PieceSource> from;  // per piece
  friend bool operator==(const BundleSend&, const BundleSend&) = default;
};

// On the wire a bundle is a header of one 64-bit size per piece (kAbsentPiece
// for a piece whose block a call moves by another variant) followed by the
// present pieces' bytes in order. The first message carries the header and
// at most bundle_prefix_bytes(n) payload bytes; a second message on the same
// tag carries the rest, only when there is a rest. The receiver pre-posts the
// first with this capacity and learns from the header whether a second
// follows, so both ends agree on the message count without knowing the sizes
// in advance (an owner that forwards blocks of other ranks does not).
inline constexpr std::uint64_t kAbsentPiece = ~std::uint64_t{0};
inline constexpr std::uint64_t kBundlePrefixPerPiece = 4096;
inline constexpr std::uint64_t kBundlePrefixMax = std::uint64_t{256} * 1024;
inline std::uint64_t bundle_header_bytes(std::size_t pieces) {
  return 8 * static_cast<std::uint64_t>(pieces);
}
inline std::uint64_t bundle_prefix_bytes(std::size_t pieces) {
  const std::uint64_t p = kBundlePrefixPerPiece * static_cast<std::uint64_t>(pieces);
  return p < kBundlePrefixMax ? p : kBundlePrefixMax;
}
// Messages one bundle takes for `payload` bytes of present pieces: 1 or 2.
inline int bundle_messages(std::size_t pieces, std::uint64_t payload) {
  return payload > bundle_prefix_bytes(pieces) ? 2 : 1;
}

struct Plan {
  int rank = 0;
  // Everything the executor needs besides the buffers. Tags are unique per
  // (sender, receiver) pair within one plan (fragments and bundles
  // together); both sides number the pair's messages in the same canonical
  // order.
  std::vector<Recv> recvs;
  std::vector<Send> sends;
  std::vector<LocalCopy> copies;
  std::vector<BundleRecv> bundle_recvs;
  std::vector<BundleSend> bundle_sends;
  friend bool operator==(const Plan&, const Plan&) = default;
};

// Inputs that describe the communicator; shared by every planner.
struct RankPlace {
  int node = 0;     // node index, 0..nodes-1
  int device = 0;   // device (GCD) index on that node
  int package = 0;  // package (GPU) id on that node
  friend bool operator==(const RankPlace&, const RankPlace&) = default;
};

// What a planner knows of the node this rank lives on.
struct NodeMatrices {
  int devices = 0;
  std::vector<int> links;  // devices x devices, row-major: T_l
  std::vector<int> hops;   // devices x devices, row-major: T_h
  [[nodiscard]] int link(int a, int b) const { return links[index(a, b)]; }
  [[nodiscard]] int hop(int a, int b) const { return hops[index(a, b)]; }
  friend bool operator==(const NodeMatrices&, const NodeMatrices&) = default;

 private:
  [[nodiscard]] std::size_t index(int a, int b) const {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(devices) + static_cast<std::size_t>(b);
  }
};

struct PlanInput {
  int rank = 0;
  std::vector<RankPlace> places;  // every rank of the communicator
  NodeMatrices node;              // topology of this rank's node
  std::vector<int> in;            // this rank's in-list (sources), kNoRank allowed
  std::vector<int> out;           // this rank's out-list (destinations), kNoRank allowed
  // How alltoall blocks pair with receive slots: the communicator's kind,
  // the same on every rank (every alltoall planner honours it).
  EdgePairing pairing = EdgePairing::kListOrder;
  // In-lists of every rank on this rank's node, this rank included (NI_r),
  // as (rank, in-list) pairs sorted by rank.
  std::vector<std::pair<int, std::vector<int>>> node_in;
  // Out-lists of the same ranks, in the same order (the aggregated planner's
  // owners gather what their node sends to another node).
  std::vector<std::pair<int, std::vector<int>>> node_out;
  // The most leaders the leader plan splits a block over on another node
  // (L_r): where one rank can fill its node's network link, splitting only
  // multiplies messages (remote_leaders_for, cost_model.h). 0: one leader
  // per package group, as the paper. The same on every rank.
  int remote_leaders = 0;
  // Equal inputs give equal plans: every planner is a function of its input.
  friend bool operator==(const PlanInput&, const PlanInput&) = default;
};

// A hash of every field of `input` (equal inputs hash alike), for finding a
// graph planned before with the same input.
std::uint64_t hash_plan_input(const PlanInput& input);

// The input rank input.node_in[i].first holds, as `input`'s own rank knows
// it: the same node, places and node lists, its own in- and out-lists.
PlanInput node_rank_input(const PlanInput& input, std::size_t i);

Plan build_linear_plan(const PlanInput& input);
// The same for neighbor alltoall: every out-edge carries a block of its own.
Plan build_linear_alltoall_plan(const PlanInput& input);

// The leader-based hierarchical plan (paper section V, generalised as written
// down in algos/README.md): intra-node split + exchange (L_t), inter-node
// scatter over package leaders (L_r), redistribution among the leaders (RM)
// and forwarding from each leader to its package group (PEM). Tags are the
// canonical ones of tags.h. Cost O(E log E), E = edges touching this node.
Plan build_leader_plan(const PlanInput& input);

// The node-aware aggregated plan (3-step; algos/README.md): the blocks of
// every node pair (A, B) with two edges or more travel as one network bundle
// from an out-owner on A to an in-owner on B, gathered on A and scattered on
// B in bundles; edges inside a node and node pairs of a single edge go as in
// the linear plan. Allgather bundles carry each origin's block once per
// remote node (the leader plan's deduplication); alltoall bundles carry one
// block per edge. Cost O(E log E), E = edges touching this node.
Plan build_aggregated_plan(const PlanInput& input);
Plan build_aggregated_alltoall_plan(const PlanInput& input);
// Both aggregated plans, {allgather, alltoall}, from one pass over the node's
// lists (graph creation builds both).
std::pair<Plan, Plan> build_aggregated_plans(const PlanInput& input);

}  // namespace nbrcoll::algos
