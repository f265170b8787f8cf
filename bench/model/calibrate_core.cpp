#include "bench/model/calibrate_core.h"

#include <algorithm>
#include <bit>
#include <map>
#include <set>

namespace nbrcalib {

namespace {

constexpr auto kNetwork = static_cast<std::uint8_t>(nbrcoll::algos::LinkClass::kNetwork);

}  // namespace

std::vector<int> nodes_from_classes(const std::vector<std::uint8_t>& classes, int ranks) {
  const auto n = static_cast<std::size_t>(ranks);
  std::vector<int> node(n, -1);
  int next = 0;
  for (std::size_t a = 0; a < n; ++a) {
    if (node[a] >= 0) continue;
    node[a] = next;
    for (std::size_t b = a + 1; b < n; ++b) {
      const std::uint8_t c = classes[a * n + b];
      if (node[b] < 0 && c != kNetwork && c != kNoClass) node[b] = next;
    }
    ++next;
  }
  return node;
}

std::array<std::pair<int, int>, kLinkClassCount> first_pairs(const std::vector<std::uint8_t>& classes, int ranks) {
  std::array<std::pair<int, int>, kLinkClassCount> pairs;
  pairs.fill({-1, -1});
  for (int a = 0; a < ranks; ++a) {
    for (int b = a + 1; b < ranks; ++b) {
      const std::uint8_t c = classes[static_cast<std::size_t>(a) * static_cast<std::size_t>(ranks) + b];
      if (c < kLinkClassCount && pairs[c].first < 0) pairs[c] = {a, b};
    }
  }
  return pairs;
}

std::array<int, kLinkClassCount> value_sources(const std::array<bool, kLinkClassCount>& measured) {
  std::array<int, kLinkClassCount> source;
  source.fill(-1);
  for (int c = 0; c < kLinkClassCount; ++c) {
    for (int d = 0; d < kLinkClassCount && source[static_cast<std::size_t>(c)] < 0; ++d) {
      // Distance d: the later class first (slower, so never optimistic).
      for (const int k : {c + d, c - d}) {
        if (k >= 0 && k < kLinkClassCount && measured[static_cast<std::size_t>(k)]) {
          source[static_cast<std::size_t>(c)] = k;
          break;
        }
      }
    }
  }
  return source;
}

Cores cores_per_node(const std::vector<std::string>& host_of_rank, const std::vector<int>& node_of_rank,
                     const std::vector<std::vector<std::uint64_t>>& cpu_mask_of_rank) {
  struct Host {
    std::vector<std::uint64_t> mask;
    std::set<int> nodes;
  };
  std::map<std::string, Host> hosts;
  for (std::size_t r = 0; r < host_of_rank.size(); ++r) {
    Host& h = hosts[host_of_rank[r]];
    const auto& mask = cpu_mask_of_rank[r];
    if (h.mask.size() < mask.size()) h.mask.resize(mask.size(), 0);
    for (std::size_t w = 0; w < mask.size(); ++w) h.mask[w] |= mask[w];
    h.nodes.insert(node_of_rank[r]);
  }
  Cores best;
  best.hosts = static_cast<int>(hosts.size());
  bool first = true;
  for (const auto& [key, h] : hosts) {
    int cpus = 0;
    for (const std::uint64_t w : h.mask) cpus += std::popcount(w);
    const double per_node = static_cast<double>(std::max(cpus, 1)) / static_cast<double>(h.nodes.size());
    if (first || per_node < best.per_node) {
      best.per_node = per_node;
      best.host_cpus = cpus;
      best.nodes_on_host = static_cast<int>(h.nodes.size());
      first = false;
    }
  }
  return best;
}

double median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

std::string machine_file(const nbrcoll::algos::MachineModel& m, const std::vector<std::string>& comments) {
  std::string text;
  for (const std::string& c : comments) text += "# " + c + "\n";
  return text + nbrcoll::algos::format_machine(m);
}

std::vector<std::vector<int>> halo_peers(const std::vector<int>& node_of_rank) {
  const int size = static_cast<int>(node_of_rank.size());
  std::vector<std::vector<int>> peers(static_cast<std::size_t>(size));
  if (size < 2) return peers;
  const int nodes = *std::max_element(node_of_rank.begin(), node_of_rank.end()) + 1;
  if (nodes == 1) {
    for (int r = 0; r < size; ++r) peers[static_cast<std::size_t>(r)] = {(r + 1) % size, (r + size - 1) % size};
    return peers;
  }
  std::vector<std::vector<int>> ranks_of(static_cast<std::size_t>(nodes));
  for (int r = 0; r < size; ++r)
    ranks_of[static_cast<std::size_t>(node_of_rank[static_cast<std::size_t>(r)])].push_back(r);
  for (int n = 0; n < nodes; ++n) {
    const auto& mine = ranks_of[static_cast<std::size_t>(n)];
    const auto& next = ranks_of[static_cast<std::size_t>((n + 1) % nodes)];
    const auto& prev = ranks_of[static_cast<std::size_t>((n + nodes - 1) % nodes)];
    for (std::size_t i = 0; i < mine.size(); ++i)
      peers[static_cast<std::size_t>(mine[i])] = {next[i % next.size()], prev[i % prev.size()]};
  }
  return peers;
}

double burst_bytes(double probe, double paused, double steady) {
  if (!(paused > steady) || !(steady > 0)) return 0;
  const double burst = probe * (1 - steady / paused);
  return burst < probe / 20 ? 0 : burst;
}

std::vector<int> senders_to(const std::vector<std::vector<int>>& peers_of, int rank) {
  std::vector<int> from;
  for (std::size_t r = 0; r < peers_of.size(); ++r)
    for (const int p : peers_of[r])
      if (p == rank) from.push_back(static_cast<int>(r));
  return from;
}

nbrcoll::algos::RankLoad exchange_load(const std::vector<std::vector<int>>& peers_of, int rank,
                                       const std::vector<std::uint8_t>& classes, std::uint64_t bytes) {
  nbrcoll::algos::RankLoad load;
  const std::size_t size = peers_of.size();
  const auto cls = [&](std::size_t a, std::size_t b) { return static_cast<std::size_t>(classes[a * size + b]); };
  const auto me = static_cast<std::size_t>(rank);
  for (const int p : peers_of[me]) {
    const std::size_t c = cls(me, static_cast<std::size_t>(p));
    ++load.sent_messages[c];
    load.sent_bytes[c] += bytes;
  }
  for (const int r : senders_to(peers_of, rank)) {
    const std::size_t c = cls(static_cast<std::size_t>(r), me);
    ++load.recv_messages[c];
    load.recv_bytes[c] += bytes;
  }
  return load;
}

}  // namespace nbrcalib
