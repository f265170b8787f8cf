// The simulation proper: structure checks, matching, execution to a fixed
// point on simulated buffers, buffer checks, statistics.
#include "simulator.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <tuple>
#include <unordered_map>

namespace nbrcoll::algos {
namespace {

constexpr std::uint64_t kGuard = 16;          // canary bytes around every slot
constexpr std::uint64_t kNullSlotBytes = 13;  // kNoRank slots: must stay canary
constexpr unsigned char kCanary = 0xA5;
constexpr std::size_t kMaxErrors = 20;

// Fills a send block with bytes unique-ish to (rank, offset): a wrong source
// or a wrong offset shows. Eight bytes per 64-bit mix.
void fill_pattern(int rank, std::vector<unsigned char>& block) {
  for (std::uint64_t w = 0; w * 8 < block.size(); ++w) {
    std::uint64_t x =
        (static_cast<std::uint64_t>(rank) + 1) * 0x9E3779B97F4A7C15ULL ^ ((w + 1) * 0xBF58476D1CE4E5B9ULL);
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

struct Endpoint {
  int sender, receiver, tag, rank, index;
};

class Simulation {
 public:
  Simulation(const CommGraph& g, const std::vector<Plan>& plans, const std::vector<std::uint64_t>& blocks)
      : g_(g), plans_(plans), blocks_(blocks), n_(static_cast<std::size_t>(g.size())) {}

  SimResult run() {
    result_.network_bytes.assign(n_, 0);
    result_.off_device_bytes.assign(n_, 0);
    if (plans_.size() != n_ || blocks_.size() != n_) {
      error("need one plan and one block size per rank");
      return std::move(result_);
    }
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
  void error(const std::string& what) {
    if (result_.errors.size() < kMaxErrors) result_.errors.push_back(what);
  }
  [[nodiscard]] const std::vector<int>& in(int r) const { return g_.in[static_cast<std::size_t>(r)]; }
  [[nodiscard]] const Plan& plan(int r) const { return plans_[static_cast<std::size_t>(r)]; }
  [[nodiscard]] std::uint64_t block(int r) const { return blocks_[static_cast<std::size_t>(r)]; }
  [[nodiscard]] bool rank_ok(int r) const { return r >= 0 && r < static_cast<int>(n_); }
  [[nodiscard]] bool slot_ok(int r, int slot) const { return slot >= 0 && slot < static_cast<int>(in(r).size()); }
  static std::string at(int r, const char* what, std::size_t i) {
    return "rank " + std::to_string(r) + " " + what + "[" + std::to_string(i) + "]: ";
  }

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
    for (std::size_t i = 0; i < p.sends.size(); ++i) {
      const Send& s = p.sends[i];
      if (!rank_ok(s.peer) || s.peer == r) error(at(r, "sends", i) + "bad peer");
      if (!rank_ok(s.origin)) error(at(r, "sends", i) + "bad origin");
      if (!valid_share(s.share)) error(at(r, "sends", i) + "bad share");
      if (s.origin == r) {
        if (s.slot != -1 || s.after_recv != -1) error(at(r, "sends", i) + "own block must come from the send buffer");
        continue;
      }
      if (!slot_ok(r, s.slot) || in(r)[static_cast<std::size_t>(s.slot)] != s.origin) {
        error(at(r, "sends", i) + "forwards from a slot of another origin (or is no destination of the origin)");
        continue;
      }
      if (s.after_recv < 0 || s.after_recv >= static_cast<int>(p.recvs.size())) {
        error(at(r, "sends", i) + "forwarding send without after_recv");
        continue;
      }
      const Recv& v = p.recvs[static_cast<std::size_t>(s.after_recv)];
      if (v.origin != s.origin || !(v.share == s.share) || v.slot != s.slot) {
        error(at(r, "sends", i) + "share differs from its after_recv's");
      }
    }
    for (std::size_t i = 0; i < p.copies.size(); ++i) {
      const LocalCopy& c = p.copies[i];
      if (!slot_ok(r, c.to_slot) || in(r)[static_cast<std::size_t>(c.to_slot)] == kNoRank) {
        error(at(r, "copies", i) + "bad target slot");
        continue;
      }
      const int origin = in(r)[static_cast<std::size_t>(c.to_slot)];
      if (c.from_slot == -1) {
        if (origin != r) error(at(r, "copies", i) + "send-buffer copy into a slot of another origin");
      } else if (!slot_ok(r, c.from_slot) || in(r)[static_cast<std::size_t>(c.from_slot)] != origin ||
                 c.from_slot == c.to_slot) {
        error(at(r, "copies", i) + "copy from a slot of another origin");
      }
    }
  }

  void match() {
    std::vector<Endpoint> sends;
    std::vector<Endpoint> recvs;
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const Plan& p = plan(r);
      for (std::size_t i = 0; i < p.sends.size(); ++i)
        sends.push_back({r, p.sends[i].peer, p.sends[i].tag, r, static_cast<int>(i)});
      for (std::size_t i = 0; i < p.recvs.size(); ++i)
        recvs.push_back({p.recvs[i].peer, r, p.recvs[i].tag, r, static_cast<int>(i)});
    }
    auto key = [](const Endpoint& e) { return std::tuple(e.sender, e.receiver, e.tag); };
    auto less = [&](const Endpoint& a, const Endpoint& b) { return key(a) < key(b); };
    std::sort(sends.begin(), sends.end(), less);
    std::sort(recvs.begin(), recvs.end(), less);
    matched_.assign(n_, {});
    for (std::size_t r = 0; r < n_; ++r) matched_[r].assign(plans_[r].sends.size(), -1);
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
        const Send& s = plan(sends[a].rank).sends[static_cast<std::size_t>(sends[a].index)];
        const Recv& v = plan(recvs[b].rank).recvs[static_cast<std::size_t>(recvs[b].index)];
        if (s.origin != v.origin || !(s.share == v.share))
          error("send and recv disagree on the fragment: " + name(sends[a]));
        matched_[static_cast<std::size_t>(sends[a].rank)][static_cast<std::size_t>(sends[a].index)] = recvs[b].index;
        ++result_.fragments;
        ++a;
        ++b;
      }
    }
  }

  void layout_buffers() {
    send_buf_.resize(n_);
    recv_buf_.resize(n_);
    slot_at_.resize(n_);
    written_.resize(n_);
    recvs_into_.resize(n_);
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const auto ru = static_cast<std::size_t>(r);
      send_buf_[ru].resize(block(r));
      fill_pattern(r, send_buf_[ru]);
      std::uint64_t offset = kGuard;
      for (const int origin : in(r)) {
        slot_at_[ru].push_back(offset);
        offset += (origin == kNoRank ? kNullSlotBytes : block(origin)) + kGuard;
      }
      recv_buf_[ru].assign(offset, kCanary);
      written_[ru].assign(in(r).size(), {});
      recvs_into_[ru].assign(in(r).size(), 0);
    }
  }

  unsigned char* slot_ptr(int r, int slot) {
    return recv_buf_[static_cast<std::size_t>(r)].data() +
           slot_at_[static_cast<std::size_t>(r)][static_cast<std::size_t>(slot)];
  }

  void execute() {
    std::vector<std::vector<std::vector<int>>> dependents(n_);  // [rank][recv] -> sends
    std::vector<std::vector<std::uint64_t>> depth(n_);          // [rank][recv] -> chain length
    std::deque<std::pair<int, int>> ready;
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const Plan& p = plan(r);
      dependents[static_cast<std::size_t>(r)].resize(p.recvs.size());
      depth[static_cast<std::size_t>(r)].assign(p.recvs.size(), 0);
      for (std::size_t i = 0; i < p.sends.size(); ++i) {
        const int after = p.sends[i].after_recv;
        if (after < 0) {
          ready.emplace_back(r, static_cast<int>(i));
        } else {
          dependents[static_cast<std::size_t>(r)][static_cast<std::size_t>(after)].push_back(static_cast<int>(i));
        }
      }
    }
    std::uint64_t fired = 0;
    std::uint64_t total_sends = 0;
    for (const Plan& p : plans_) total_sends += p.sends.size();
    while (!ready.empty()) {
      const auto [r, i] = ready.front();
      ready.pop_front();
      ++fired;
      const Send& s = plan(r).sends[static_cast<std::size_t>(i)];
      const int vi = matched_[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
      const Recv& v = plan(s.peer).recvs[static_cast<std::size_t>(vi)];
      const ByteRange range = share_bytes(s.share, block(s.origin));
      const unsigned char* from = s.origin == r ? send_buf_[static_cast<std::size_t>(r)].data() : slot_ptr(r, s.slot);
      ++recvs_into_[static_cast<std::size_t>(s.peer)][static_cast<std::size_t>(v.slot)];
      if (range.size() > 0) {
        std::memcpy(slot_ptr(s.peer, v.slot) + range.begin, from + range.begin, range.size());
        written_[static_cast<std::size_t>(s.peer)][static_cast<std::size_t>(v.slot)].push_back(range);
      }
      const std::uint64_t d =
          (s.after_recv < 0 ? 0 : depth[static_cast<std::size_t>(r)][static_cast<std::size_t>(s.after_recv)]) + 1;
      depth[static_cast<std::size_t>(s.peer)][static_cast<std::size_t>(vi)] = d;
      result_.rounds = std::max(result_.rounds, d);
      for (const int next : dependents[static_cast<std::size_t>(s.peer)][static_cast<std::size_t>(vi)])
        ready.emplace_back(s.peer, next);
    }
    if (fired != total_sends) {
      error("deadlock: " + std::to_string(total_sends - fired) + " of " + std::to_string(total_sends) +
            " sends never became ready");
    }
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
        const int origin = in(r)[static_cast<std::size_t>(c.to_slot)];
        const unsigned char* from =
            c.from_slot < 0 ? send_buf_[static_cast<std::size_t>(r)].data() : slot_ptr(r, c.from_slot);
        if (block(origin) > 0) std::memcpy(slot_ptr(r, c.to_slot), from, block(origin));
        written_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c.to_slot)].push_back({0, block(origin)});
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
        const std::uint64_t size = origin == kNoRank ? kNullSlotBytes : block(origin);
        prev_end = start + size;
        const std::string where = "rank " + std::to_string(r) + " slot " + std::to_string(slot) + ": ";
        if (origin == kNoRank) {
          if (!all_canary(recv_buf_[ru].data() + start, size)) error(where + "MPI_PROC_NULL slot written");
          continue;
        }
        const int n_copies = copies_into(r, slot);
        auto& ranges = written_[ru][static_cast<std::size_t>(slot)];
        const int n_recvs = recvs_into_[ru][static_cast<std::size_t>(slot)];
        if (n_copies + (n_recvs > 0 ? 1 : 0) != 1) {
          error(where + "must be filled by receives or by one local copy (has " + std::to_string(n_recvs) +
                " receives, " + std::to_string(n_copies) + " copies)");
        }
        if (origin == r && n_copies != 1) error(where + "self slot needs exactly one local copy");
        if (n_copies == 0) {
          std::sort(ranges.begin(), ranges.end(),
                    [](const ByteRange& x, const ByteRange& y) { return x.begin < y.begin; });
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
        if (size > 0 &&
            std::memcmp(recv_buf_[ru].data() + start, send_buf_[static_cast<std::size_t>(origin)].data(), size) != 0) {
          error(where + "bytes differ from the origin's block");
        }
      }
      if (!all_canary(recv_buf_[ru].data() + prev_end, recv_buf_[ru].size() - prev_end)) {
        error("rank " + std::to_string(r) + ": guard byte after the last slot written");
      }
    }
  }

  void tally() {
    const auto block_of = [this](int origin) { return block(origin); };
    for (int r = 0; r < static_cast<int>(n_); ++r) {
      const Plan& p = plan(r);
      result_.stats += compute_stats(p, block_of, &in(r));
      const RankPlace& from = g_.places[static_cast<std::size_t>(r)];
      for (const Send& s : p.sends) {
        const std::uint64_t bytes = share_bytes(s.share, block(s.origin)).size();
        const RankPlace& to = g_.places[static_cast<std::size_t>(s.peer)];
        const RankPlace& origin = g_.places[static_cast<std::size_t>(s.origin)];
        if (from.node != to.node) result_.network_bytes[static_cast<std::size_t>(s.origin)] += bytes;
        const bool from_origin_gcd = from.node == origin.node && from.device == origin.device;
        const bool to_origin_gcd = to.node == origin.node && to.device == origin.device;
        if (from_origin_gcd && !to_origin_gcd) result_.off_device_bytes[static_cast<std::size_t>(s.origin)] += bytes;
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
  const std::vector<std::uint64_t>& blocks_;
  std::size_t n_;
  SimResult result_;
  std::vector<std::vector<int>> matched_;  // [rank][send] -> recv index at the peer
  std::vector<std::vector<unsigned char>> send_buf_;
  std::vector<std::vector<unsigned char>> recv_buf_;
  std::vector<std::vector<std::uint64_t>> slot_at_;
  std::vector<std::vector<std::vector<ByteRange>>> written_;  // [rank][slot]
  std::vector<std::vector<int>> recvs_into_;                  // [rank][slot]
  std::unordered_map<std::pair<int, int>, int, PairHash> copies_into_;
};

}  // namespace

SimResult simulate(const CommGraph& graph, const std::vector<Plan>& plans,
                   const std::vector<std::uint64_t>& block_bytes) {
  return Simulation(graph, plans, block_bytes).run();
}

std::vector<std::string> compare_with_linear(const SimResult& candidate, const SimResult& linear) {
  std::vector<std::string> errors;
  auto check = [&](const std::vector<std::uint64_t>& c, const std::vector<std::uint64_t>& l, const char* what) {
    std::uint64_t total_c = 0;
    std::uint64_t total_l = 0;
    for (std::size_t o = 0; o < c.size() && o < l.size(); ++o) {
      total_c += c[o];
      total_l += l[o];
      if (c[o] > l[o] && errors.size() < kMaxErrors) {
        errors.push_back(std::string(what) + " of origin " + std::to_string(o) + ": " + std::to_string(c[o]) +
                         " > linear " + std::to_string(l[o]));
      }
    }
    if (total_c > total_l)
      errors.push_back(std::string("total ") + what + ": " + std::to_string(total_c) + " > linear " +
                       std::to_string(total_l));
  };
  if (candidate.network_bytes.size() != linear.network_bytes.size())
    errors.push_back("results of different communicators");
  check(candidate.network_bytes, linear.network_bytes, "network bytes");
  check(candidate.off_device_bytes, linear.off_device_bytes, "bytes leaving the origin's GCD");
  return errors;
}

}  // namespace nbrcoll::algos
