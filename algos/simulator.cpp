// The simulation proper: structure checks, matching, execution to a fixed
// point on simulated buffers, buffer checks, statistics. One engine for both
// collectives: allgather (one block per origin) and alltoall (one block per
// out-edge, paired with receive slots by MPI's rule).
#include "algos/simulator.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <tuple>

#include "algos/schedule.h"

namespace nbrcoll::algos {
namespace {

constexpr std::uint64_t kGuard = 16;          // canary bytes around every slot
constexpr std::uint64_t kNullSlotBytes = 13;  // kNoRank slots: must stay canary
constexpr unsigned char kCanary = 0xA5;
constexpr std::size_t kMaxErrors = 20;

using Bytes = std::vector<unsigned char>;

// Fills a block with bytes unique-ish to (seed, offset): a wrong source or a
// wrong offset shows. Eight bytes per 64-bit mix.
void fill_pattern(std::uint64_t seed, Bytes& block) {
  for (std::uint64_t w = 0; w * 8 < block.size(); ++w) {
    std::uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ ((w + 1) * 0xBF58476D1CE4E5B9ULL);
    x ^= x >> 29;
    x *= 0x94D049BB133111EBULL;
    x ^= x >> 32;
    const std::size_t n = std::min<std::size_t>(8, block.size() - w * 8);
    std::memcpy(block.data() + w * 8, &x, n);
  }
}

bool all_canary(const unsigned char* p, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    if (p[i] != kCanary) return false;
  }
  return true;
}

bool valid_share(const Share& s) {
  return s.total > 0 && s.lo <= s.hi && s.hi <= s.total;
}

// A message endpoint for matching: fragments and bundles share the tag space
// of a (sender, receiver) pair.
struct Endpoint {
  int sender, receiver, tag, rank, index;
  bool bundle;
};

// An event of the execution: a send (fragment or bundle) that can fire.
struct Ready {
  int rank;
  int index;
  bool bundle;
};

class Simulation {
 public:
  // Allgather: blocks[r] = B(r). Alltoall: edges[s][j] = bytes of out-edge j.
  Simulation(const CommGraph& g, const std::vector<Plan>& plans, const std::vector<std::uint64_t>* blocks,
             const std::vector<std::vector<std::uint64_t>>* edges)
      : g_(g), plans_(plans), blocks_(blocks), edges_(edges), n_(static_cast<std::size_t>(g.size())) {}

  SimResult run() {
    result_.network_bytes.assign(n_, 0);
    result_.off_device_bytes.assign(n_, 0);
    result_.network_messages.assign(g_.nodes.size() * g_.nodes.size(), 0);
    if (plans_.size() != n_ || (blocks_ != nullptr && blocks_->size() != n_) ||
        (edges_ != nullptr && !edge_sizes_fit())) {
      error("need one plan and one block size per rank (alltoall: per out-edge)");
      return std::move(result_);
    }
    index_edges();
    for (int r = 0; r < static_cast<int>(n_); ++r) check_structure(r);
    if (!result_.ok()) return std::move(result_);
    match();
    if (!result_.ok()) return std::move(result_);
    layout_buffers();
    execute();
    if (!result_.ok()) return std::move(result_);
    local_copies();
    check_buffers();
    tally();
    return std::move(result_);
  }

 private:
  [[nodiscard]] bool alltoall() const { return edges_ != nullptr; }
  void error(const std::string& what) {
    if (result_.errors.size() < kMaxErrors) result_.errors.push_back(what);
  }
  [[nodiscard]] bool edge_sizes_fit() const {
    if (edges_->size() != n_) return false;
    for (std::size_t r = 0; r < n_; ++r) {
      if ((*edges_)[r].size() != g_.out[r].size()) return false;
    }
    return true;
  }
  [[nodiscard]] const std::vector<int>& in(int r) const { return g_.in[static_cast<std::size_t>(r)]; }
  [[nodiscard]] const std::vector<int>& out(int r) const { return g_.out[static_cast<std::size_t>(r)]; }
  [[nodiscard]] const Plan& plan(int r) const { return plans_[static_cast<std::size_t>(r)]; }
  [[nodiscard]] bool rank_ok(int r) const { return r >= 0 && r < static_cast<int>(n_); }
  [[nodiscard]] bool slot_ok(int r, int slot) const { return slot >= 0 && slot < static_cast<int>(in(r).size()); }
  [[nodiscard]] bool edge_ok(int r, int j) const { return j >= 0 && j < static_cast<int>(out(r).size()); }
  [[nodiscard]] int node(int r) const { return g_.places[static_cast<std::size_t>(r)].node; }
  static std::string at(int r, const char* what, std::size_t i) {
    return "rank " + std::to_string(r) + " " + what + "[" + std::to_string(i) + "]: ";
  }

  // ---- blocks ----------------------------------------------------------------

  // Alltoall: block {s, d, k} (the one that fills the k-th occurrence of s
  // in d's in-list) is out-edge edge_of_[s][(d, k)] of s, and slot i of d
  // holds block slot_block_[d][i]. Graphs: the k-th occurrence of d in s's
  // out-list. Cartesian: out-edge j fills slot j ^ 1 of d, whose k is
  // counted in d's in-list.
  void index_edges() {
    edge_of_.assign(n_, {});
    slot_block_.assign(n_, {});
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      std::map<int, int> nth;
      for (int j = 0; j < static_cast<int>(out(r).size()); ++j) {
        const int d = out(r)[static_cast<std::size_t>(j)];
        if (d == kNoRank) continue;
        int k = nth[d]++;
        if (g_.pairing == EdgePairing::kCartesian) {
          const std::vector<int>& there = in(d);
          const auto slot = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(j) ^ 1U);
          k = static_cast<int>(
              std::count(there.begin(), there.begin() + std::min<std::ptrdiff_t>(slot, std::ssize(there)), r));
        }
        edge_of_[static_cast<std::size_t>(r)][{d, k}] = j;
      }
      std::map<int, int> seen;
      for (const int s : in(r)) {
        const BlockId id = s == kNoRank ? BlockId{} : alltoall() ? BlockId{s, r, seen[s]++} : BlockId{s, -1, 0};
        slot_block_[static_cast<std::size_t>(r)].push_back(id);
      }
    }
  }
  // The out-edge of a valid alltoall block, or -1.
  [[nodiscard]] int edge_of(const BlockId& b) const {
    if (!rank_ok(b.origin)) return -1;
    const auto& m = edge_of_[static_cast<std::size_t>(b.origin)];
    const auto it = m.find({b.dest, b.k});
    return it == m.end() ? -1 : it->second;
  }
  [[nodiscard]] bool block_ok(const BlockId& b) const {
    if (!rank_ok(b.origin)) return false;
    return alltoall() ? edge_of(b) >= 0 : b.dest == -1 && b.k == 0;
  }
  [[nodiscard]] std::uint64_t size_of(const BlockId& b) const {
    if (!alltoall()) return (*blocks_)[static_cast<std::size_t>(b.origin)];
    const int j = edge_of(b);
    return j < 0 ? 0 : (*edges_)[static_cast<std::size_t>(b.origin)][static_cast<std::size_t>(j)];
  }
  [[nodiscard]] const BlockId& slot_block(int r, int slot) const {
    return slot_block_[static_cast<std::size_t>(r)][static_cast<std::size_t>(slot)];
  }
  [[nodiscard]] std::uint64_t slot_size(int r, int slot) const {
    const BlockId& b = slot_block(r, slot);
    if (b.origin == kNoRank) return kNullSlotBytes;
    return alltoall() && edge_of(b) < 0 ? 0 : size_of(b);
  }
  // This rank's own block: allgather its one send block, alltoall out-edge j.
  [[nodiscard]] const Bytes& own_block(int r, int out_edge) const {
    const auto& blocks = send_buf_[static_cast<std::size_t>(r)];
    return blocks[alltoall() ? static_cast<std::size_t>(out_edge) : 0];
  }
  [[nodiscard]] BlockId own_id(int r, int out_edge) const {
    if (!alltoall()) return {r, -1, 0};
    for (const auto& [key, j] : edge_of_[static_cast<std::size_t>(r)]) {
      if (j == out_edge) return {r, key.first, key.second};
    }
    return {};
  }

  // ---- structure -------------------------------------------------------------

  void check_structure(int r) {
    const Plan& p = plan(r);
    if (p.rank != r) error("plan of rank " + std::to_string(r) + " says rank " + std::to_string(p.rank));
    for (std::size_t i = 0; i < p.recvs.size(); ++i) {
      const Recv& v = p.recvs[i];
      if (!rank_ok(v.peer) || v.peer == r) error(at(r, "recvs", i) + "bad peer");
      if (!rank_ok(v.origin) || v.origin == r) error(at(r, "recvs", i) + "bad origin");
      if (!valid_share(v.share)) error(at(r, "recvs", i) + "bad share");
      if (!slot_ok(r, v.slot) || in(r)[static_cast<std::size_t>(v.slot)] != v.origin)
        error(at(r, "recvs", i) + "slot of another origin");
    }
    for (std::size_t i = 0; i < p.sends.size(); ++i) check_send(r, i);
    for (std::size_t i = 0; i < p.copies.size(); ++i) check_copy(r, i);
    for (std::size_t i = 0; i < p.bundle_recvs.size(); ++i) check_bundle_recv(r, i);
    for (std::size_t i = 0; i < p.bundle_sends.size(); ++i) check_bundle_send(r, i);
  }

  void check_send(int r, std::size_t i) {
    const Send& s = plan(r).sends[i];
    if (!rank_ok(s.peer) || s.peer == r) error(at(r, "sends", i) + "bad peer");
    if (!rank_ok(s.origin)) error(at(r, "sends", i) + "bad origin");
    if (!valid_share(s.share)) error(at(r, "sends", i) + "bad share");
    if (alltoall()) {
      if (s.origin != r || s.after_recv != -1 || !edge_ok(r, s.out_edge) ||
          out(r)[static_cast<std::size_t>(s.out_edge)] != s.peer)
        error(at(r, "sends", i) + "an alltoall send carries its own out-edge's block to that edge's destination");
      return;
    }
    if (s.out_edge != -1) error(at(r, "sends", i) + "allgather send names an out-edge");
    if (s.origin == r) {
      if (s.slot != -1 || s.after_recv != -1) error(at(r, "sends", i) + "own block must come from the send buffer");
      return;
    }
    if (!slot_ok(r, s.slot) || in(r)[static_cast<std::size_t>(s.slot)] != s.origin) {
      error(at(r, "sends", i) + "forwards from a slot of another origin (or is no destination of the origin)");
      return;
    }
    if (s.after_recv < 0 || s.after_recv >= static_cast<int>(plan(r).recvs.size())) {
      error(at(r, "sends", i) + "forwarding send without after_recv");
      return;
    }
    const Recv& v = plan(r).recvs[static_cast<std::size_t>(s.after_recv)];
    if (v.origin != s.origin || !(v.share == s.share) || v.slot != s.slot) {
      error(at(r, "sends", i) + "share differs from its after_recv's");
    }
  }

  void check_copy(int r, std::size_t i) {
    const LocalCopy& c = plan(r).copies[i];
    if (!slot_ok(r, c.to_slot) || in(r)[static_cast<std::size_t>(c.to_slot)] == kNoRank) {
      error(at(r, "copies", i) + "bad target slot");
      return;
    }
    const int origin = in(r)[static_cast<std::size_t>(c.to_slot)];
    if (alltoall()) {
      // Only self edges copy: the k-th self slot from the k-th self out-edge.
      if (c.from_slot != -1 || !edge_ok(r, c.from_out_edge) ||
          !(own_id(r, c.from_out_edge) == slot_block(r, c.to_slot)))
        error(at(r, "copies", i) + "alltoall copy does not pair a self out-edge with its self slot");
      return;
    }
    if (c.from_slot == -1) {
      if (origin != r) error(at(r, "copies", i) + "send-buffer copy into a slot of another origin");
    } else if (!slot_ok(r, c.from_slot) || in(r)[static_cast<std::size_t>(c.from_slot)] != origin ||
               c.from_slot == c.to_slot) {
      error(at(r, "copies", i) + "copy from a slot of another origin");
    }
  }

  void check_bundle_recv(int r, std::size_t i) {
    const BundleRecv& b = plan(r).bundle_recvs[i];
    if (!rank_ok(b.peer) || b.peer == r) error(at(r, "bundle_recvs", i) + "bad peer");
    if (b.slot.size() != b.pieces.size()) {
      error(at(r, "bundle_recvs", i) + "one slot entry per piece");
      return;
    }
    for (std::size_t k = 0; k < b.pieces.size(); ++k) {
      if (!block_ok(b.pieces[k])) error(at(r, "bundle_recvs", i) + "piece names no block");
      if (k > 0 && !(b.pieces[k - 1] < b.pieces[k])) error(at(r, "bundle_recvs", i) + "pieces repeat");
      const int slot = b.slot[k];
      if (slot == -1 || slot == kPieceAbsent) continue;
      if (!slot_ok(r, slot) || !(slot_block(r, slot) == b.pieces[k]))
        error(at(r, "bundle_recvs", i) + "piece fills a slot of another block");
    }
  }

  void check_bundle_send(int r, std::size_t i) {
    const Plan& p = plan(r);
    const BundleSend& b = p.bundle_sends[i];
    if (!rank_ok(b.peer) || b.peer == r) error(at(r, "bundle_sends", i) + "bad peer");
    if (b.from.size() != b.pieces.size()) {
      error(at(r, "bundle_sends", i) + "one source per piece");
      return;
    }
    for (std::size_t k = 0; k < b.pieces.size(); ++k) {
      const PieceSource& f = b.from[k];
      if (f.bundle == -1 || f.bundle == kPieceAbsent) {
        if (!(own_id(r, f.out_edge) == b.pieces[k]) || (!alltoall() && f.out_edge != -1))
          error(at(r, "bundle_sends", i) + "own piece is not this rank's block");
      } else if (f.bundle < 0 || f.bundle >= static_cast<int>(p.bundle_recvs.size()) || f.piece < 0 ||
                 f.piece >= static_cast<int>(p.bundle_recvs[static_cast<std::size_t>(f.bundle)].pieces.size()) ||
                 !(p.bundle_recvs[static_cast<std::size_t>(f.bundle)].pieces[static_cast<std::size_t>(f.piece)] ==
                   b.pieces[k])) {
        error(at(r, "bundle_sends", i) + "piece comes from a bundle that does not carry it");
      }
    }
  }

  // ---- matching --------------------------------------------------------------

  void match() {
    std::vector<Endpoint> sends;
    std::vector<Endpoint> recvs;
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const Plan& p = plan(r);
      for (std::size_t i = 0; i < p.sends.size(); ++i)
        sends.push_back({r, p.sends[i].peer, p.sends[i].tag, r, static_cast<int>(i), false});
      for (std::size_t i = 0; i < p.recvs.size(); ++i)
        recvs.push_back({p.recvs[i].peer, r, p.recvs[i].tag, r, static_cast<int>(i), false});
      for (std::size_t i = 0; i < p.bundle_sends.size(); ++i)
        sends.push_back({r, p.bundle_sends[i].peer, p.bundle_sends[i].tag, r, static_cast<int>(i), true});
      for (std::size_t i = 0; i < p.bundle_recvs.size(); ++i)
        recvs.push_back({p.bundle_recvs[i].peer, r, p.bundle_recvs[i].tag, r, static_cast<int>(i), true});
    }
    auto key = [](const Endpoint& e) { return std::tuple(e.sender, e.receiver, e.tag); };
    auto less = [&](const Endpoint& a, const Endpoint& b) { return key(a) < key(b); };
    std::sort(sends.begin(), sends.end(), less);
    std::sort(recvs.begin(), recvs.end(), less);
    matched_.assign(n_, {});
    bundle_matched_.assign(n_, {});
    for (std::size_t r = 0; r < n_; ++r) {
      matched_[r].assign(plans_[r].sends.size(), -1);
      bundle_matched_[r].assign(plans_[r].bundle_sends.size(), -1);
    }
    std::size_t a = 0;
    std::size_t b = 0;
    auto name = [](const Endpoint& e) {
      return std::to_string(e.sender) + "->" + std::to_string(e.receiver) + " tag " + std::to_string(e.tag);
    };
    while (a < sends.size() || b < recvs.size()) {
      if (b == recvs.size() || (a < sends.size() && less(sends[a], recvs[b]))) {
        error("send without a matching recv: " + name(sends[a++]));
      } else if (a == sends.size() || less(recvs[b], sends[a])) {
        error("recv without a matching send: " + name(recvs[b++]));
      } else {
        if ((a + 1 < sends.size() && key(sends[a + 1]) == key(sends[a])) ||
            (b + 1 < recvs.size() && key(recvs[b + 1]) == key(recvs[b]))) {
          error("tag used twice: " + name(sends[a]));
        }
        pair_up(sends[a], recvs[b], name(sends[a]));
        ++result_.fragments;
        ++a;
        ++b;
      }
    }
  }

  void pair_up(const Endpoint& send, const Endpoint& recv, const std::string& name) {
    const auto sr = static_cast<std::size_t>(send.rank);
    const auto si = static_cast<std::size_t>(send.index);
    if (send.bundle != recv.bundle) {
      error("a bundle and a fragment share a tag: " + name);
      return;
    }
    if (send.bundle) {
      const BundleSend& s = plan(send.rank).bundle_sends[si];
      const BundleRecv& v = plan(recv.rank).bundle_recvs[static_cast<std::size_t>(recv.index)];
      if (s.pieces != v.pieces) error("bundle send and recv disagree on the pieces: " + name);
      bundle_matched_[sr][si] = recv.index;
      return;
    }
    const Send& s = plan(send.rank).sends[si];
    const Recv& v = plan(recv.rank).recvs[static_cast<std::size_t>(recv.index)];
    if (s.origin != v.origin || !(s.share == v.share)) error("send and recv disagree on the fragment: " + name);
    matched_[sr][si] = recv.index;
  }

  // ---- buffers ---------------------------------------------------------------

  void layout_buffers() {
    send_buf_.resize(n_);
    recv_buf_.resize(n_);
    slot_at_.resize(n_);
    written_.resize(n_);
    recvs_into_.resize(n_);
    stored_.resize(n_);
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const auto ru = static_cast<std::size_t>(r);
      if (alltoall()) {
        for (std::size_t j = 0; j < out(r).size(); ++j) {
          Bytes block((*edges_)[ru][j]);
          fill_pattern((static_cast<std::uint64_t>(r) << 24) + j, block);
          send_buf_[ru].push_back(std::move(block));
        }
      } else {
        Bytes block((*blocks_)[ru]);
        fill_pattern(static_cast<std::uint64_t>(r) << 24, block);
        send_buf_[ru].push_back(std::move(block));
      }
      std::uint64_t offset = kGuard;
      for (int slot = 0; slot < static_cast<int>(in(r).size()); ++slot) {
        slot_at_[ru].push_back(offset);
        offset += slot_size(r, slot) + kGuard;
      }
      recv_buf_[ru].assign(offset, kCanary);
      written_[ru].assign(in(r).size(), {});
      recvs_into_[ru].assign(in(r).size(), 0);
      stored_[ru].resize(plan(r).bundle_recvs.size());
    }
  }

  unsigned char* slot_ptr(int r, int slot) {
    return recv_buf_[static_cast<std::size_t>(r)].data() +
           slot_at_[static_cast<std::size_t>(r)][static_cast<std::size_t>(slot)];
  }

  // The bytes a block has where it should end: the origin's send block.
  [[nodiscard]] const Bytes& origin_bytes(const BlockId& b) const {
    return own_block(b.origin, alltoall() ? edge_of(b) : -1);
  }

  void write_slot(int r, int slot, ByteRange range, const unsigned char* from) {
    const std::uint64_t size = slot_size(r, slot);
    ++recvs_into_[static_cast<std::size_t>(r)][static_cast<std::size_t>(slot)];
    if (range.end > size) {
      error("rank " + std::to_string(r) + " slot " + std::to_string(slot) + ": a message larger than the slot");
      return;
    }
    if (range.size() == 0) return;
    std::memcpy(slot_ptr(r, slot) + range.begin, from, range.size());
    written_[static_cast<std::size_t>(r)][static_cast<std::size_t>(slot)].push_back(range);
  }

  // ---- execution -------------------------------------------------------------

  void execute() {
    // Every rank's dependencies as the engine derives them (schedule.h).
    std::vector<Dependencies> deps(n_);
    std::deque<Ready> ready;
    depth_.assign(n_, {});
    bundle_depth_.assign(n_, {});
    waiting_.assign(n_, {});
    std::uint64_t total = 0;
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const auto ru = static_cast<std::size_t>(r);
      const Plan& p = plan(r);
      total += p.sends.size() + p.bundle_sends.size();
      deps[ru] = plan_dependencies(p);
      depth_[ru].assign(p.recvs.size(), 0);
      bundle_depth_[ru].assign(p.bundle_recvs.size(), 0);
      waiting_[ru] = deps[ru].bundle_waits;
      for (const int i : deps[ru].own_sends) ready.push_back({r, i, false});
      for (std::size_t i = 0; i < p.bundle_sends.size(); ++i) {
        if (waiting_[ru][i] == 0) ready.push_back({r, static_cast<int>(i), true});
      }
    }
    std::uint64_t fired = 0;
    while (!ready.empty()) {
      const Ready e = ready.front();
      ready.pop_front();
      ++fired;
      if (e.bundle) {
        const auto [peer, vi] = fire_bundle(e.rank, e.index);
        for (const int next : deps[static_cast<std::size_t>(peer)].bundle_forwards[static_cast<std::size_t>(vi)]) {
          if (--waiting_[static_cast<std::size_t>(peer)][static_cast<std::size_t>(next)] == 0)
            ready.push_back({peer, next, true});
        }
      } else {
        const auto [peer, vi] = fire(e.rank, e.index);
        for (const int next : deps[static_cast<std::size_t>(peer)].forwards[static_cast<std::size_t>(vi)])
          ready.push_back({peer, next, false});
      }
    }
    if (fired != total) {
      error("deadlock: " + std::to_string(total - fired) + " of " + std::to_string(total) +
            " sends never became ready");
    }
  }

  // A fragment send: bytes into the matched receive's slot. Returns (peer, recv).
  std::pair<int, int> fire(int r, int i) {
    const Send& s = plan(r).sends[static_cast<std::size_t>(i)];
    const int vi = matched_[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
    const Recv& v = plan(s.peer).recvs[static_cast<std::size_t>(vi)];
    const bool own = s.origin == r;
    const unsigned char* from = own ? own_block(r, s.out_edge).data() : slot_ptr(r, s.slot);
    const std::uint64_t source_size = own ? own_block(r, s.out_edge).size() : slot_size(r, s.slot);
    const ByteRange range = share_bytes(s.share, source_size);
    write_slot(s.peer, v.slot, range, from + range.begin);
    const std::uint64_t d =
        (s.after_recv < 0 ? 0 : depth_[static_cast<std::size_t>(r)][static_cast<std::size_t>(s.after_recv)]) + 1;
    depth_[static_cast<std::size_t>(s.peer)][static_cast<std::size_t>(vi)] = d;
    result_.rounds = std::max(result_.rounds, d);
    return {s.peer, vi};
  }

  // A bundle send: its pieces (present or absent) into the matched receive's
  // store; slot pieces land in their slots. Returns (peer, bundle recv).
  std::pair<int, int> fire_bundle(int r, int i) {
    const Plan& p = plan(r);
    const BundleSend& s = p.bundle_sends[static_cast<std::size_t>(i)];
    const int vi = bundle_matched_[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
    const BundleRecv& v = plan(s.peer).bundle_recvs[static_cast<std::size_t>(vi)];
    std::vector<std::optional<Bytes>> pieces;
    std::uint64_t d = 0;
    std::uint64_t payload = 0;
    for (const PieceSource& f : s.from) {
      if (f.bundle == kPieceAbsent) {
        pieces.emplace_back();
      } else if (f.bundle == -1) {
        pieces.emplace_back(own_block(r, f.out_edge));
      } else {
        const auto b = static_cast<std::size_t>(f.bundle);
        pieces.push_back(stored_[static_cast<std::size_t>(r)][b][static_cast<std::size_t>(f.piece)]);
        d = std::max(d, bundle_depth_[static_cast<std::size_t>(r)][b]);
      }
      if (pieces.back()) payload += pieces.back()->size();
    }
    ++d;
    bundle_depth_[static_cast<std::size_t>(s.peer)][static_cast<std::size_t>(vi)] = d;
    result_.rounds = std::max(result_.rounds, d);
    tally_bundle(r, s, pieces, payload);
    for (std::size_t k = 0; k < v.pieces.size(); ++k) {
      const int slot = v.slot[k];
      const std::string where =
          "rank " + std::to_string(s.peer) + " bundle from " + std::to_string(r) + " piece " + std::to_string(k) + ": ";
      if (slot >= 0) {
        if (!pieces[k]) {
          error(where + "a block this rank expects came absent");
        } else {
          write_slot(s.peer, slot, {0, pieces[k]->size()}, pieces[k]->data());
        }
      } else if (slot == kPieceAbsent && pieces[k]) {
        error(where + "a block this rank moves by another variant came in the bundle");
      }
    }
    stored_[static_cast<std::size_t>(s.peer)][static_cast<std::size_t>(vi)] = std::move(pieces);
    return {s.peer, vi};
  }

  void tally_bundle(int r, const BundleSend& s, const std::vector<std::optional<Bytes>>& pieces,
                    std::uint64_t payload) {
    const int messages = bundle_messages(s.pieces.size(), payload);
    const std::uint64_t header = bundle_header_bytes(s.pieces.size());
    result_.header_bytes += header;
    LinkTally& t = result_.stats.sent[static_cast<std::size_t>(s.link)];
    t.messages += static_cast<std::uint64_t>(messages);
    t.bytes += header + payload;
    const RankPlace& from = g_.places[static_cast<std::size_t>(r)];
    const RankPlace& to = g_.places[static_cast<std::size_t>(s.peer)];
    if (from.node != to.node) {
      result_.network_messages[static_cast<std::size_t>(from.node) * g_.nodes.size() +
                               static_cast<std::size_t>(to.node)] += static_cast<std::uint64_t>(messages);
    }
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      if (pieces[k]) count_payload(r, s.peer, s.pieces[k].origin, pieces[k]->size());
    }
  }

  // Payload bytes of `origin`'s block(s) sent from `from` to `to`.
  void count_payload(int from_rank, int to_rank, int origin, std::uint64_t bytes) {
    const RankPlace& from = g_.places[static_cast<std::size_t>(from_rank)];
    const RankPlace& to = g_.places[static_cast<std::size_t>(to_rank)];
    const RankPlace& o = g_.places[static_cast<std::size_t>(origin)];
    if (from.node != to.node) result_.network_bytes[static_cast<std::size_t>(origin)] += bytes;
    const bool from_origin_gcd = from.node == o.node && from.device == o.device;
    const bool to_origin_gcd = to.node == o.node && to.device == o.device;
    if (from_origin_gcd && !to_origin_gcd) result_.off_device_bytes[static_cast<std::size_t>(origin)] += bytes;
  }

  [[nodiscard]] int copies_into(int r, int slot) const {
    const auto it = copies_into_.find(std::pair(r, slot));
    return it == copies_into_.end() ? 0 : it->second;
  }

  // Copies run after every receive, in any order: so a copy's source slot
  // must be one that receives fill, never another copy's target.
  void local_copies() {
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      for (const LocalCopy& c : plan(r).copies) ++copies_into_[std::pair(r, c.to_slot)];
    }
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      for (const LocalCopy& c : plan(r).copies) {
        if (c.from_slot >= 0 && copies_into(r, c.from_slot) > 0) {
          error("rank " + std::to_string(r) + ": copy from slot " + std::to_string(c.from_slot) +
                ", itself a copy target");
        }
        const std::uint64_t size = slot_size(r, c.to_slot);
        const unsigned char* from = c.from_slot >= 0 ? slot_ptr(r, c.from_slot)
                                    : alltoall()     ? own_block(r, c.from_out_edge).data()
                                                     : own_block(r, -1).data();
        if (size > 0) std::memcpy(slot_ptr(r, c.to_slot), from, size);
        written_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c.to_slot)].push_back({0, size});
      }
    }
  }

  // Each non-null slot is filled exactly once: by non-overlapping receives
  // tiling the block (home slot), or by one local copy (self / duplicate).
  void check_buffers() {
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const auto ru = static_cast<std::size_t>(r);
      std::uint64_t prev_end = 0;
      for (int slot = 0; slot < static_cast<int>(in(r).size()); ++slot) {
        const int origin = in(r)[static_cast<std::size_t>(slot)];
        const std::uint64_t start = slot_at_[ru][static_cast<std::size_t>(slot)];
        if (!all_canary(recv_buf_[ru].data() + prev_end, start - prev_end)) {
          error("rank " + std::to_string(r) + ": guard byte before slot " + std::to_string(slot) + " written");
        }
        const std::uint64_t size = slot_size(r, slot);
        prev_end = start + size;
        const std::string where = "rank " + std::to_string(r) + " slot " + std::to_string(slot) + ": ";
        if (origin == kNoRank) {
          if (!all_canary(recv_buf_[ru].data() + start, size)) error(where + "MPI_PROC_NULL slot written");
          continue;
        }
        if (alltoall() && edge_of(slot_block(r, slot)) < 0) {
          // A surplus self slot has no block (MPI leaves it alone).
          if (recvs_into_[ru][static_cast<std::size_t>(slot)] + copies_into(r, slot) != 0)
            error(where + "slot without a block written");
          continue;
        }
        check_slot(r, slot, where);
      }
      if (!all_canary(recv_buf_[ru].data() + prev_end, recv_buf_[ru].size() - prev_end)) {
        error("rank " + std::to_string(r) + ": guard byte after the last slot written");
      }
    }
  }

  void check_slot(int r, int slot, const std::string& where) {
    const auto ru = static_cast<std::size_t>(r);
    const int origin = in(r)[static_cast<std::size_t>(slot)];
    const std::uint64_t size = slot_size(r, slot);
    const int n_copies = copies_into(r, slot);
    auto& ranges = written_[ru][static_cast<std::size_t>(slot)];
    const int n_recvs = recvs_into_[ru][static_cast<std::size_t>(slot)];
    if (n_copies + (n_recvs > 0 ? 1 : 0) != 1) {
      error(where + "must be filled by receives or by one local copy (has " + std::to_string(n_recvs) + " receives, " +
            std::to_string(n_copies) + " copies)");
    }
    if (origin == r && n_copies != 1) error(where + "self slot needs exactly one local copy");
    if (n_copies == 0) {
      std::sort(ranges.begin(), ranges.end(), [](const ByteRange& x, const ByteRange& y) { return x.begin < y.begin; });
      std::uint64_t covered = 0;
      for (const ByteRange& range : ranges) {
        if (range.begin != covered) {
          error(where + (range.begin < covered ? "bytes written twice" : "bytes never written"));
          break;
        }
        covered = range.end;
      }
      if (covered != size) error(where + "block not complete");
    }
    const Bytes& want = origin_bytes(slot_block(r, slot));
    const unsigned char* got = recv_buf_[ru].data() + slot_at_[ru][static_cast<std::size_t>(slot)];
    if (size > 0 && (want.size() != size || std::memcmp(got, want.data(), size) != 0)) {
      error(where + "bytes differ from the origin's block");
    }
  }

  void tally() {
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const Plan& p = plan(r);
      for (const Send& s : p.sends) {
        const std::uint64_t source = s.origin == r ? own_block(r, s.out_edge).size() : slot_size(r, s.slot);
        const std::uint64_t bytes = share_bytes(s.share, source).size();
        if (bytes > 0) {
          LinkTally& t = result_.stats.sent[static_cast<std::size_t>(s.link)];
          ++t.messages;
          t.bytes += bytes;
        }
        count_payload(r, s.peer, s.origin, bytes);
        if (node(r) != node(s.peer)) {
          ++result_.network_messages[static_cast<std::size_t>(node(r)) * g_.nodes.size() +
                                     static_cast<std::size_t>(node(s.peer))];
        }
      }
      for (const LocalCopy& c : p.copies) {
        ++result_.stats.copies;
        result_.stats.copy_bytes += slot_size(r, c.to_slot);
      }
    }
  }

  struct PairHash {
    std::size_t operator()(const std::pair<int, int>& p) const {
      return std::hash<long long>()((static_cast<long long>(p.first) << 32) ^ p.second);
    }
  };

  const CommGraph& g_;
  const std::vector<Plan>& plans_;
  const std::vector<std::uint64_t>* blocks_;
  const std::vector<std::vector<std::uint64_t>>* edges_;
  std::size_t n_;
  SimResult result_;
  std::vector<std::map<std::pair<int, int>, int>> edge_of_;  // [rank][(dest, k)] -> out-edge
  std::vector<std::vector<BlockId>> slot_block_;             // [rank][slot] -> block it must hold
  std::vector<std::vector<int>> matched_;                    // [rank][send] -> recv index at the peer
  std::vector<std::vector<int>> bundle_matched_;             // [rank][bundle send] -> bundle recv at the peer
  std::vector<std::vector<Bytes>> send_buf_;                 // [rank][block]
  std::vector<Bytes> recv_buf_;
  std::vector<std::vector<std::uint64_t>> slot_at_;
  std::vector<std::vector<std::vector<ByteRange>>> written_;            // [rank][slot]
  std::vector<std::vector<int>> recvs_into_;                            // [rank][slot]
  std::vector<std::vector<std::vector<std::optional<Bytes>>>> stored_;  // [rank][bundle recv][piece]
  std::vector<std::vector<std::uint64_t>> depth_;                       // [rank][recv]
  std::vector<std::vector<std::uint64_t>> bundle_depth_;                // [rank][bundle recv]
  std::vector<std::vector<int>> waiting_;                               // [rank][bundle send] -> deps left
  std::unordered_map<std::pair<int, int>, int, PairHash> copies_into_;
};

}  // namespace

SimResult simulate(const CommGraph& graph, const std::vector<Plan>& plans,
                   const std::vector<std::uint64_t>& block_bytes) {
  return Simulation(graph, plans, &block_bytes, nullptr).run();
}

SimResult simulate_alltoall(const CommGraph& graph, const std::vector<Plan>& plans,
                            const std::vector<std::vector<std::uint64_t>>& edge_bytes) {
  return Simulation(graph, plans, nullptr, &edge_bytes).run();
}

namespace {

std::vector<Plan> selected(const std::vector<MixedPlan>& mixed, const std::vector<std::vector<Variant>>& choices) {
  std::vector<Plan> plans;
  plans.reserve(mixed.size());
  for (std::size_t r = 0; r < mixed.size(); ++r) plans.push_back(select(mixed[r], choices[r]));
  return plans;
}

}  // namespace

SimResult simulate_mixed(const CommGraph& graph, const std::vector<MixedPlan>& mixed,
                         const std::vector<std::vector<Variant>>& choices,
                         const std::vector<std::uint64_t>& block_bytes) {
  return simulate(graph, selected(mixed, choices), block_bytes);
}

SimResult simulate_mixed_alltoall(const CommGraph& graph, const std::vector<MixedPlan>& mixed,
                                  const std::vector<std::vector<Variant>>& choices,
                                  const std::vector<std::vector<std::uint64_t>>& edge_bytes) {
  return simulate_alltoall(graph, selected(mixed, choices), edge_bytes);
}

std::vector<std::string> compare_with_linear(const SimResult& candidate, const SimResult& linear) {
  std::vector<std::string> errors;
  auto check = [&](const std::vector<std::uint64_t>& c, const std::vector<std::uint64_t>& l, const char* what,
                   const char* unit) {
    std::uint64_t total_c = 0;
    std::uint64_t total_l = 0;
    for (std::size_t o = 0; o < c.size() && o < l.size(); ++o) {
      total_c += c[o];
      total_l += l[o];
      if (c[o] > l[o] && errors.size() < kMaxErrors) {
        errors.push_back(std::string(what) + " of " + unit + " " + std::to_string(o) + ": " + std::to_string(c[o]) +
                         " > linear " + std::to_string(l[o]));
      }
    }
    if (total_c > total_l) {
      errors.push_back(std::string("total ") + what + ": " + std::to_string(total_c) + " > linear " +
                       std::to_string(total_l));
    }
  };
  if (candidate.network_bytes.size() != linear.network_bytes.size() ||
      candidate.network_messages.size() != linear.network_messages.size())
    errors.push_back("results of different communicators");
  check(candidate.network_bytes, linear.network_bytes, "network bytes", "origin");
  check(candidate.off_device_bytes, linear.off_device_bytes, "bytes leaving the origin's GCD", "origin");
  check(candidate.network_messages, linear.network_messages, "network messages", "node pair (from * nodes + to)");
  return errors;
}

}  // namespace nbrcoll::algos
