// The node-aware aggregated plan (3-step, after Bienz et al.; algos/README.md
// "Aggregated plan"): the blocks that the ranks of node A send to the ranks
// of node B travel between the nodes as one bundle, gathered on A at an
// out-owner and scattered on B by an in-owner.
//
// Every party of a node pair (A, B) derives the same pair plan from the same
// edge set E(A, B): the ranks of A from their node's out-lists (node_out),
// the ranks of B from their node's in-lists (node_in); the MPI standard makes
// the two multisets equal. Owners are chosen from E(A, B) alone, so nobody
// needs to know any other pair.
#include <algorithm>
#include <cstdint>
#include <span>
#include <tuple>
#include <utility>

#include "algos/linear_plan.h"
#include "algos/link_class.h"
#include "algos/plan.h"

namespace nbrcoll::algos {
namespace {

// One edge of a node pair: the block it carries and, on the destination's
// node, the receive slot it fills (-1 where unknown: on the source's node).
struct PairEdge {
  BlockId block;  // alltoall: {s, d, k}; allgather: {s, d, k} too (k-th s -> d edge), blocks are per origin
  int slot = -1;
};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Index into a list of `n` candidates for the owner of pair (a, b): spread
// over the ranks of a node as the remote node varies, the same on every rank.
std::size_t owner_index(int a, int b, int salt, std::size_t n) {
  const std::uint64_t key =
      (static_cast<std::uint64_t>(a) << 33) ^ (static_cast<std::uint64_t>(b) << 2) ^ static_cast<std::uint64_t>(salt);
  return static_cast<std::size_t>(mix(key) % n);
}

// Canonical order of the bundles between one pair of ranks (after its linear
// fragments): gather bundles by remote node, then the network bundle, then
// scatter bundles by source node.
enum Step : int { kGatherStep = 1, kNetworkStep = 2, kScatterStep = 3 };

struct Owners {
  int out = kNoRank;  // on the sending node: gathers, sends the network bundle
  int in = kNoRank;   // on the receiving node: receives it, scatters
};

// Sorts `v` unless it already is (edges come in block order, so their
// origins and blocks mostly are).
template <class T>
void sort_unless_sorted(std::vector<T>& v) {
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
}

// The distinct origins (or destinations) of `edges`, ascending, into `out`.
void distinct(std::span<const PairEdge> edges, int BlockId::*field, std::vector<int>& out) {
  out.clear();
  for (const PairEdge& e : edges) out.push_back(e.block.*field);
  sort_unless_sorted(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

std::vector<int> distinct(std::span<const PairEdge> edges, int BlockId::*field) {
  std::vector<int> out;
  out.reserve(edges.size());
  distinct(edges, field, out);
  return out;
}

// E(A, B) of one node pair, in block order, and its owners. Owners are
// sources / destinations of the pair themselves, so a node pair with one
// busy source or destination needs no gather or scatter step.
struct NodePair {
  int node = 0;  // the remote node: B of E(my node, B), A of E(A, my node)
  std::span<const PairEdge> edges;
  Owners owners;
  // A pair whose blocks travel as bundles: two edges or more (a single edge
  // goes direct, one message, as in linear).
  [[nodiscard]] bool bundled() const { return edges.size() >= 2; }
};

// One side of this rank's node: its pairs with every remote node it has an
// edge with, ascending by that node, their edges in one array.
class PairSide {
 public:
  PairSide() = default;
  PairSide(const PairSide&) = delete;  // its pairs' spans point into its own edges
  PairSide& operator=(const PairSide&) = delete;
  PairSide(PairSide&&) = default;
  PairSide& operator=(PairSide&&) = default;
  // (remote node, edge) for every edge of the side, in any order.
  void build(int nodes, const std::vector<std::pair<int, PairEdge>>& found) {
    std::vector<std::size_t> first(static_cast<std::size_t>(nodes) + 1, 0);  // counting sort by node
    for (const auto& f : found) ++first[static_cast<std::size_t>(f.first) + 1];
    for (std::size_t n = 1; n < first.size(); ++n) first[n] += first[n - 1];
    edges_.resize(found.size());
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (const auto& [node, edge] : found) edges_[next[static_cast<std::size_t>(node)]++] = edge;
    index_.assign(static_cast<std::size_t>(nodes), -1);
    for (int n = 0; n < nodes; ++n) {
      const auto u = static_cast<std::size_t>(n);
      if (first[u] == first[u + 1]) continue;
      const auto begin = edges_.begin() + static_cast<std::ptrdiff_t>(first[u]);
      const auto end = edges_.begin() + static_cast<std::ptrdiff_t>(first[u + 1]);
      std::sort(begin, end, [](const PairEdge& x, const PairEdge& y) { return x.block < y.block; });
      index_[u] = static_cast<int>(pairs_.size());
      pairs_.push_back({n, std::span<const PairEdge>(&*begin, first[u + 1] - first[u]), {}});
    }
  }
  [[nodiscard]] const std::vector<NodePair>& pairs() const { return pairs_; }
  std::vector<NodePair>& pairs() { return pairs_; }
  [[nodiscard]] const NodePair* find(int node) const {
    const int i = index_[static_cast<std::size_t>(node)];
    return i < 0 ? nullptr : &pairs_[static_cast<std::size_t>(i)];
  }

 private:
  std::vector<PairEdge> edges_;
  std::vector<NodePair> pairs_;
  std::vector<int> index_;  // per node: its pair's index, -1: none
};

// The node pairs of this rank's node, the same for the allgather and the
// alltoall plan (edges carry {s, d, k}; each plan makes its blocks of them).
struct NodePairs {
  PairSide out;  // E(my node, B) for every remote node B
  PairSide in;   // E(A, my node) for every remote node A
};

// E(my node, B) from node_out and E(A, my node) from node_in, every edge
// named by the slot it fills: {s, d, k}, the k-th occurrence of s in d's
// in-list (the sources' side knows k from receiver_occurrences).
NodePairs collect_pairs(const PlanInput& input) {
  const auto node_of = [&input](int rank) { return input.places[static_cast<std::size_t>(rank)].node; };
  const int my_node = node_of(input.rank);
  int nodes = 0;
  for (const RankPlace& p : input.places) nodes = std::max(nodes, p.node + 1);
  std::vector<std::pair<int, PairEdge>> found;
  NodePairs pairs;
  std::vector<int> nth;  // one list's occurrence numbers at a time
  for (const auto& [s, out] : input.node_out) {
    receiver_occurrences(out, input.pairing, nth);
    for (std::size_t j = 0; j < out.size(); ++j) {
      const int d = out[j];
      if (d == kNoRank || node_of(d) == my_node) continue;
      found.push_back({node_of(d), {{s, d, nth[j]}, -1}});
    }
  }
  pairs.out.build(nodes, found);
  found.clear();
  for (const auto& [d, in] : input.node_in) {
    occurrence_numbers(in, nth);
    for (std::size_t slot = 0; slot < in.size(); ++slot) {
      const int s = in[slot];
      if (s == kNoRank || node_of(s) == my_node) continue;
      found.push_back({node_of(s), {{s, d, nth[slot]}, d == input.rank ? static_cast<int>(slot) : -1}});
    }
  }
  pairs.in.build(nodes, found);
  std::vector<int> s;
  std::vector<int> d;
  const auto finish = [&s, &d](NodePair& pair, int a, int b) {
    if (!pair.bundled()) return;
    distinct(pair.edges, &BlockId::origin, s);
    distinct(pair.edges, &BlockId::dest, d);
    pair.owners = {s[owner_index(a, b, 0, s.size())], d[owner_index(a, b, 1, d.size())]};
  };
  for (NodePair& pair : pairs.out.pairs()) finish(pair, my_node, pair.node);
  for (NodePair& pair : pairs.in.pairs()) finish(pair, pair.node, my_node);
  return pairs;
}

class AggregatedPlanner {
 public:
  AggregatedPlanner(const PlanInput& input, const NodePairs& pairs, bool alltoall)
      : in_(input),
        pairs_(pairs),
        me_(input.rank),
        my_node_(node_of(input.rank)),
        alltoall_(alltoall),
        k_at_receiver_(receiver_occurrences(input.out, input.pairing)) {}

  Plan build() {
    plan_ = linear_plan_of(in_, alltoall_, [this](int s, int d) { return !aggregated(node_of(s), node_of(d)); });
    for (const NodePair& pair : pairs_.out.pairs()) {
      if (pair.bundled()) plan_sending_pair(pair.node, pair);
    }
    for (const NodePair& pair : pairs_.in.pairs()) {
      if (pair.bundled()) plan_receiving_pair(pair.node, pair);
    }
    add_duplicate_copies();
    number_bundles();
    return std::move(plan_);
  }

 private:
  [[nodiscard]] int node_of(int rank) const { return in_.places[static_cast<std::size_t>(rank)].node; }

  // Whether the edges from node a to node b (one of them this rank's) travel
  // as bundles.
  [[nodiscard]] bool aggregated(int a, int b) const {
    if (a == b) return false;
    const NodePair* pair = a == my_node_ ? pairs_.out.find(b) : pairs_.in.find(a);
    return pair != nullptr && pair->bundled();
  }

  // The block an edge carries: per edge for alltoall, per origin for allgather.
  [[nodiscard]] BlockId block_of(const BlockId& edge) const { return alltoall_ ? edge : BlockId{edge.origin, -1, 0}; }

  // The distinct blocks of `edges` that `select` accepts, in canonical order.
  template <class Pred>
  std::vector<BlockId> blocks(std::span<const PairEdge> edges, Pred select) const {
    std::vector<BlockId> out;
    for (const PairEdge& e : edges) {
      if (select(e)) out.push_back(block_of(e.block));
    }
    sort_unless_sorted(out);
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // The out-edge of this rank that carries alltoall block {me, d, k}.
  [[nodiscard]] int out_edge_of(const BlockId& b) const {
    for (int j = 0; j < static_cast<int>(in_.out.size()); ++j) {
      const auto u = static_cast<std::size_t>(j);
      if (in_.out[u] == b.dest && k_at_receiver_[u] == b.k) return j;
    }
    return -1;
  }

  [[nodiscard]] PieceSource own_piece(const BlockId& b) const { return {-1, -1, alltoall_ ? out_edge_of(b) : -1}; }

  // Bundles on this rank's node A for pair (A, b).
  void plan_sending_pair(int b, const NodePair& pair) {
    const std::span<const PairEdge> edges = pair.edges;
    const Owners& o = pair.owners;
    const auto of_source = [&](int s) { return blocks(edges, [s](const PairEdge& e) { return e.block.origin == s; }); };
    if (me_ != o.out) {
      const std::vector<BlockId> mine = of_source(me_);
      if (mine.empty()) return;
      BundleSend send = make_send(o.out, mine);
      for (const BlockId& id : mine) send.from.push_back(own_piece(id));
      add_send(std::move(send), {kGatherStep, b});
      return;
    }
    // Out-owner: gather the other sources' blocks, then one network bundle.
    const std::vector<BlockId> all = blocks(edges, [](const PairEdge&) { return true; });
    std::vector<PieceSource> where(all.size());  // per block of `all`
    const auto at = [&all](const BlockId& id) {
      return static_cast<std::size_t>(std::lower_bound(all.begin(), all.end(), id) - all.begin());
    };
    for (const int s : distinct(edges, &BlockId::origin)) {
      const std::vector<BlockId> theirs = of_source(s);
      if (s == me_) {
        for (const BlockId& id : theirs) where[at(id)] = own_piece(id);
        continue;
      }
      const int r = add_recv(make_recv(s, theirs, false), {kGatherStep, b});
      for (std::size_t i = 0; i < theirs.size(); ++i) where[at(theirs[i])] = {r, static_cast<int>(i), -1};
    }
    BundleSend send = make_send(o.in, all);
    send.from = std::move(where);
    add_send(std::move(send), {kNetworkStep, b});
  }

  // Bundles on this rank's node B for pair (a, B).
  void plan_receiving_pair(int a, const NodePair& pair) {
    const std::span<const PairEdge> edges = pair.edges;
    const Owners& o = pair.owners;
    const auto of_dest = [&](int d) { return blocks(edges, [d](const PairEdge& e) { return e.block.dest == d; }); };
    if (me_ != o.in) {
      const std::vector<BlockId> mine = of_dest(me_);
      if (!mine.empty()) add_recv(make_recv(o.in, mine, true), {kScatterStep, a});
      return;
    }
    const std::vector<BlockId> all = blocks(edges, [](const PairEdge&) { return true; });
    const int r = add_recv(make_recv(o.out, all, true), {kNetworkStep, a});
    for (const int d : distinct(edges, &BlockId::dest)) {
      if (d == me_) continue;
      const std::vector<BlockId> theirs = of_dest(d);
      BundleSend send = make_send(d, theirs);
      for (const BlockId& id : theirs) {
        const auto at = std::lower_bound(all.begin(), all.end(), id) - all.begin();
        send.from.push_back({r, static_cast<int>(at), -1});
      }
      add_send(std::move(send), {kScatterStep, a});
    }
  }

  [[nodiscard]] BundleSend make_send(int peer, std::vector<BlockId> pieces) const {
    BundleSend s;
    s.peer = peer;
    s.link = classify_link(in_.places, in_.node, me_, peer);
    s.pieces = std::move(pieces);
    return s;
  }

  // On the receiving node pieces destined to this rank fill their slot:
  // alltoall the slot of the edge, allgather the origin's home slot (its
  // first in-list slot). A gather bundle only carries: the blocks of its
  // own node's sources reach this rank linearly.
  [[nodiscard]] BundleRecv make_recv(int peer, std::vector<BlockId> pieces, bool fills_slots) const {
    BundleRecv r;
    r.peer = peer;
    r.link = classify_link(in_.places, in_.node, peer, me_);
    r.pieces = std::move(pieces);
    for (const BlockId& id : r.pieces) r.slot.push_back(fills_slots ? slot_here(id) : -1);
    return r;
  }

  [[nodiscard]] int slot_here(const BlockId& id) const {
    if (alltoall_ && id.dest != me_) return -1;
    int seen = 0;
    for (int slot = 0; slot < static_cast<int>(in_.in.size()); ++slot) {
      if (in_.in[static_cast<std::size_t>(slot)] != id.origin) continue;
      if (!alltoall_ || seen++ == id.k) return slot;
    }
    return -1;
  }

  using BundleKey = std::pair<int, int>;  // (step, remote node)
  int add_recv(BundleRecv r, BundleKey key) {
    recv_keys_.push_back(key);
    plan_.bundle_recvs.push_back(std::move(r));
    return static_cast<int>(plan_.bundle_recvs.size()) - 1;
  }
  void add_send(BundleSend s, BundleKey key) {
    send_keys_.push_back(key);
    plan_.bundle_sends.push_back(std::move(s));
  }

  // Allgather: a block that came in a bundle filled its home slot once; the
  // origin's other slots (duplicate edges) copy it.
  void add_duplicate_copies() {
    if (alltoall_) return;
    std::vector<int> by_bundle;  // origins whose block a bundle brings into a slot
    for (const BundleRecv& r : plan_.bundle_recvs) {
      for (std::size_t i = 0; i < r.pieces.size(); ++i) {
        if (r.slot[i] >= 0) by_bundle.push_back(r.pieces[i].origin);
      }
    }
    if (by_bundle.empty()) return;
    std::sort(by_bundle.begin(), by_bundle.end());
    const HomeSlots home(in_.in);
    for (int slot = 0; slot < static_cast<int>(in_.in.size()); ++slot) {
      const int s = in_.in[static_cast<std::size_t>(slot)];
      if (!std::binary_search(by_bundle.begin(), by_bundle.end(), s)) continue;
      if (const int first = home.find(s); first != slot) plan_.copies.push_back({first, slot, -1});
    }
  }

  // Bundle tags per peer continue after the peer's linear fragments, in
  // (step, node) order: both ends count the same fragments and keys.
  void number_bundles() {
    number(plan_.bundle_sends, send_keys_, peers_of(plan_.sends));
    number(plan_.bundle_recvs, recv_keys_, peers_of(plan_.recvs));
  }

  // The peers of `fragments`, ascending, one entry per fragment.
  template <class Fragment>
  static std::vector<int> peers_of(const std::vector<Fragment>& fragments) {
    std::vector<int> peers;
    peers.reserve(fragments.size());
    for (const Fragment& f : fragments) peers.push_back(f.peer);
    std::sort(peers.begin(), peers.end());
    return peers;
  }

  template <class Bundle>
  static void number(std::vector<Bundle>& bundles, const std::vector<BundleKey>& keys,
                     const std::vector<int>& linear_peers) {
    std::vector<std::size_t> order(bundles.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return std::tie(bundles[x].peer, keys[x]) < std::tie(bundles[y].peer, keys[y]);
    });
    int tag = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const int peer = bundles[order[i]].peer;
      if (i == 0 || bundles[order[i - 1]].peer != peer) {
        const auto [first, last] = std::equal_range(linear_peers.begin(), linear_peers.end(), peer);
        tag = static_cast<int>(last - first);
      }
      bundles[order[i]].tag = tag++;
    }
  }

  const PlanInput& in_;
  const NodePairs& pairs_;
  int me_;
  int my_node_;
  bool alltoall_;
  std::vector<int> k_at_receiver_;  // per out-edge (receiver_occurrences)
  Plan plan_;
  std::vector<BundleKey> send_keys_;
  std::vector<BundleKey> recv_keys_;
};

}  // namespace

Plan build_aggregated_plan(const PlanInput& input) {
  return AggregatedPlanner(input, collect_pairs(input), false).build();
}

Plan build_aggregated_alltoall_plan(const PlanInput& input) {
  return AggregatedPlanner(input, collect_pairs(input), true).build();
}

std::pair<Plan, Plan> build_aggregated_plans(const PlanInput& input) {
  const NodePairs pairs = collect_pairs(input);
  return {AggregatedPlanner(input, pairs, false).build(), AggregatedPlanner(input, pairs, true).build()};
}

}  // namespace nbrcoll::algos
