// The leader-based plan of one rank (paper section V; the generalisation is
// written down in algos/README.md). Every delivery of a source's block to the
// destinations on one node is planned by one function that all parties call
// with the same (source, destinations): the source derives the destinations
// from its out-list, the receivers from node_in (the MPI standard makes the
// two agree), and each keeps only the fragments it sends or receives.
#include <algorithm>
#include <span>
#include <stdexcept>
#include <utility>

#include "algos/grouping.h"
#include "algos/link_class.h"
#include "algos/plan.h"
#include "algos/tags.h"

namespace nbrcoll::algos {
namespace {

constexpr Share kWhole{0, 1, 1};

class LeaderPlanner {
 public:
  explicit LeaderPlanner(const PlanInput& input) : in_(input), me_(input.rank), home_(input.in) { plan_.rank = me_; }

  Plan build() {
    plan_as_source();
    plan_as_destination();
    add_local_copies();
    assign_canonical_tags(plan_);
    return std::move(plan_);
  }

 private:
  [[nodiscard]] const RankPlace& place(int rank) const { return in_.places[static_cast<std::size_t>(rank)]; }

  // The home slot of an origin (its first slot in this rank's in-list),
  // which every receive and forward of its block uses.
  [[nodiscard]] int home(int origin) const {
    const int slot = home_.find(origin);
    if (slot < 0) throw std::out_of_range("leader plan: origin without a slot");
    return slot;
  }

  int recv(int peer, int origin, Share share) {
    Recv r;
    r.peer = peer;
    r.origin = origin;
    r.share = share;
    r.slot = home(origin);
    r.link = classify_link(in_.places, in_.node, peer, me_);
    plan_.recvs.push_back(r);
    return static_cast<int>(plan_.recvs.size()) - 1;
  }

  // after_recv: the recv that brought exactly `share` (ignored for own blocks).
  void send(int peer, int origin, Share share, int after_recv) {
    Send s;
    s.peer = peer;
    s.origin = origin;
    s.share = share;
    if (origin != me_) {
      s.slot = home(origin);
      s.after_recv = after_recv;
    }
    s.link = classify_link(in_.places, in_.node, me_, peer);
    plan_.sends.push_back(s);
  }

  // The whole block straight from source to dest.
  void direct(int source, int dest) {
    if (me_ == source) send(dest, source, kWhole, -1);
    if (me_ == dest) recv(source, source, kWhole);
  }

  // L_t: source and its distinct destinations `dests` on its own node.
  // Destinations on the source's device get the block directly; the others
  // are grouped by package; a group of one gets it directly; a larger group
  // gets weighted shares from the source and exchanges them (all-to-all).
  void deliver_intra(int source, const std::vector<int>& dests) {
    const int source_device = place(source).device;
    grouped_.clear();
    for (const int d : dests) {
      if (place(d).device == source_device) {
        direct(source, d);
      } else {
        grouped_.push_back(d);
      }
    }
    group_by_package(grouped_, in_.places, groups_);
    for (const PackageGroup& g : groups_) {
      if (g.members.size() == 1) {
        direct(source, g.leader());
        continue;
      }
      exchange_in_group(source, g.members, intra_weights(source, g.members, in_.places, in_.node));
    }
  }

  void exchange_in_group(int source, std::span<const int> members, const std::vector<std::uint32_t>& w) {
    const std::size_t n = members.size();
    std::vector<Share>& share = shares_;
    share.resize(n);
    std::uint32_t prefix = 0;
    for (std::size_t i = 0; i < n; ++i) {
      share[i] = {prefix, prefix + w[i], 0};
      prefix += w[i];
    }
    for (Share& s : share) s.total = prefix;

    if (me_ == source) {
      for (std::size_t i = 0; i < n; ++i) {
        if (w[i] > 0) send(members[i], source, share[i], -1);
      }
      return;
    }
    const auto mine = std::find(members.begin(), members.end(), me_);
    if (mine == members.end()) return;
    const auto i = static_cast<std::size_t>(mine - members.begin());
    if (w[i] > 0) {
      const int got = recv(source, source, share[i]);
      for (std::size_t j = 0; j < n; ++j) {
        if (j != i) send(members[j], source, share[i], got);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (j != i && w[j] > 0) recv(members[j], source, share[j]);
    }
  }

  // At most `limit` groups (limit > 0): consecutive package groups merged,
  // group j of k into group j * limit / k. The groups view consecutive runs
  // of grouped_, so a merged group is again a run. Its leader takes turns by
  // source (the run rotated by source mod its size): one fixed leader per
  // node would receive and forward most blocks of a stencil's row alone.
  void merge_groups(std::vector<PackageGroup>& groups, int limit, int source) {
    const std::size_t k = groups.size();
    const auto most = static_cast<std::size_t>(limit);
    if (limit <= 0 || k <= most) return;
    std::size_t merged = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t into = j * most / k;
      if (into == merged && j > 0) {
        PackageGroup& g = groups[into];
        g.members = {g.members.data(), g.members.size() + groups[j].members.size()};
      } else {
        groups[into] = groups[j];
        merged = into;
      }
    }
    groups.resize(most);
    for (PackageGroup& g : groups) {
      const auto first = grouped_.begin() + (g.members.data() - grouped_.data());
      const auto turn = static_cast<std::ptrdiff_t>(static_cast<std::size_t>(source) % g.members.size());
      std::rotate(first, first + turn, first + static_cast<std::ptrdiff_t>(g.members.size()));
    }
  }

  // L_r, RM, PEM: source and its distinct destinations `dests` on another
  // node. One leader per package group (at most in_.remote_leaders); part j
  // of k goes to leader j over the network, the leaders exchange parts,
  // each leader forwards every part to the rest of its group.
  void deliver_remote(int source, const std::vector<int>& dests) {
    grouped_.assign(dests.begin(), dests.end());
    group_by_package(grouped_, in_.places, groups_);
    merge_groups(groups_, in_.remote_leaders, source);
    const std::vector<PackageGroup>& groups = groups_;
    const auto k = static_cast<std::uint32_t>(groups.size());
    auto part = [k](std::size_t j) {
      const auto u = static_cast<std::uint32_t>(j);
      return Share{u, u + 1, k};
    };
    if (me_ == source) {
      for (std::size_t j = 0; j < groups.size(); ++j) send(groups[j].leader(), source, part(j), -1);
      return;
    }
    for (std::size_t j = 0; j < groups.size(); ++j) {
      const std::span<const int> members = groups[j].members;
      if (std::find(members.begin(), members.end(), me_) == members.end()) continue;
      if (me_ != groups[j].leader()) {  // PEM, receiving end
        for (std::size_t i = 0; i < groups.size(); ++i) recv(members.front(), source, part(i));
        return;
      }
      std::vector<int>& got = got_;
      got.assign(groups.size(), -1);
      got[j] = recv(source, source, part(j));  // L_r
      for (std::size_t i = 0; i < groups.size(); ++i) {
        if (i != j) got[i] = recv(groups[i].leader(), source, part(i));  // RM in
      }
      for (std::size_t i = 0; i < groups.size(); ++i) {
        if (i != j) send(groups[i].leader(), source, part(j), got[j]);  // RM out
      }
      for (std::size_t m = 1; m < members.size(); ++m) {  // PEM: own part first
        send(members[m], source, part(j), got[j]);
        for (std::size_t i = 0; i < groups.size(); ++i) {
          if (i != j) send(members[m], source, part(i), got[i]);
        }
      }
      return;
    }
  }

  // `dests`: distinct ranks of one node, not empty.
  void deliver(int source, const std::vector<int>& dests) {
    if (place(source).node == place(dests.front()).node) {
      deliver_intra(source, dests);
    } else {
      deliver_remote(source, dests);
    }
  }

  // This rank's own block: distinct destinations from the out-list, by node.
  void plan_as_source() {
    std::vector<std::pair<int, int>> dests;  // (node, rank)
    for (const int d : in_.out) {
      if (d != kNoRank && d != me_) dests.emplace_back(place(d).node, d);
    }
    std::sort(dests.begin(), dests.end());
    dests.erase(std::unique(dests.begin(), dests.end()), dests.end());
    std::vector<int> run;
    for (std::size_t i = 0; i < dests.size(); ++i) {
      run.push_back(dests[i].second);
      if (i + 1 == dests.size() || dests[i + 1].first != dests[i].first) {
        deliver(me_, run);
        run.clear();
      }
    }
  }

  // Other sources' blocks: the destinations on this node from node_in.
  void plan_as_destination() {
    std::vector<std::pair<int, int>> edges;  // (source, rank on this node)
    for (const auto& [rank, list] : in_.node_in) {
      for (const int source : list) {
        if (source != kNoRank && source != rank) edges.emplace_back(source, rank);
      }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    std::vector<int> run;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      run.push_back(edges[i].second);
      if (i + 1 == edges.size() || edges[i + 1].first != edges[i].first) {
        const int source = edges[i].first;
        if (source != me_ && home_.find(source) >= 0) deliver(source, run);
        run.clear();
      }
    }
  }

  void add_local_copies() {
    for (int slot = 0; slot < static_cast<int>(in_.in.size()); ++slot) {
      const int origin = in_.in[static_cast<std::size_t>(slot)];
      if (origin == me_) {
        plan_.copies.push_back({-1, slot});
      } else if (origin != kNoRank) {
        if (const int first = home(origin); first != slot) plan_.copies.push_back({first, slot});
      }
    }
  }

  const PlanInput& in_;
  int me_;
  HomeSlots home_;
  Plan plan_;
  // Reused by every delivery (none runs inside another).
  std::vector<int> grouped_;
  std::vector<PackageGroup> groups_;
  std::vector<Share> shares_;
  std::vector<int> got_;
};

}  // namespace

Plan build_leader_plan(const PlanInput& input) {
  return LeaderPlanner(input).build();
}

}  // namespace nbrcoll::algos
