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

}  // namespace nbrcalib
