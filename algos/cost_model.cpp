#include "algos/cost_model.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <sstream>

namespace nbrcoll::algos {

namespace {

constexpr int kNetwork = static_cast<int>(LinkClass::kNetwork);
__extension__ typedef __int128 Wide;  // GCC/Clang: exact interpolation of ns over bytes

MachineModel machine(std::string name, std::array<LinkCost, kLinkClassCount> link, double nic, double copy,
                     double cores) {
  MachineModel m;
  m.name = std::move(name);
  m.link = link;
  m.nic_bytes_per_us = nic;
  m.copy_bytes_per_us = copy;
  m.cores = cores;
  return m;
}

// Order of LinkClass: same-device, same-package, xgmi-linked, multi-hop,
// network. Rates in bytes/us (= MB/s). The data path of host buffers (what
// auto chooses for; device calls keep the size threshold): typical MPI
// figures for such nodes, not measurements; a calibration file
// (nbrcoll-calibrate) replaces them with measured ones.
std::vector<MachineModel> builtins() {
  return {
      // HPE Cray EX235a (Frontier): ranks on a 64-core EPYC, host memory
      // between ranks of a node (shared-memory transport; same GCD / package
      // ~ same L3 / NUMA domain), Slingshot-11 between nodes: one 25 GB/s
      // NIC per MI250X, 4 per node.
      machine("frontier", {{{0.4, 12000}, {0.5, 10000}, {0.6, 8000}, {0.7, 7000}, {2.5, 12000}}}, 100000, 10000, 56),
      // The paper's Cluster A: 4 x MI250 on a dual-socket server, one
      // 200 Gb/s InfiniBand HDR NIC per node.
      machine("mi250", {{{0.4, 12000}, {0.5, 10000}, {0.8, 6000}, {0.9, 6000}, {2.0, 12000}}}, 25000, 10000, 64),
      // 8 x MI300X, a 400 Gb/s NIC per GPU.
      machine("mi300x", {{{0.4, 14000}, {0.5, 12000}, {0.6, 10000}, {0.8, 8000}, {2.5, 15000}}}, 400000, 14000, 96),
      // 8 x H100 (DGX), a 400 Gb/s NIC per GPU.
      machine("dgx-h100", {{{0.4, 14000}, {0.5, 12000}, {0.6, 10000}, {0.8, 8000}, {2.5, 15000}}}, 400000, 14000, 112),
      // A commodity cluster node: 32 cores, one 100 Gb/s NIC.
      machine("generic", {{{0.4, 10000}, {0.5, 8000}, {0.6, 7000}, {0.7, 6000}, {2.0, 10000}}}, 12000, 8000, 32),
      // This project's emulated cluster (bench/cluster/run.sh): every "node"
      // a network namespace on one 2-core host, TCP over 1 Gbit/s per node
      // link, the ranks of all nodes on the same two cores. Rough; a
      // calibration file (nbrcoll-calibrate) measures it.
      machine("emulated", {{{30, 3000}, {30, 3000}, {30, 3000}, {30, 3000}, {150, 117}}}, 117, 3000, 1),
  };
}

const char* const kClassKeys[kLinkClassCount] = {"same-device", "same-package", "xgmi-linked", "multi-hop", "network"};

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// A finite number >= 0 (> 0 unless `zero_ok`), the whole text.
std::optional<double> positive(const std::string& text, bool zero_ok = false) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(v) || !(v > 0 || (zero_ok && v == 0)))
    return std::nullopt;
  return v;
}

// A positive integer (ranks-per-node, nodes).
std::optional<int> positive_int(const std::string& text) {
  const std::optional<double> v = positive(text);
  if (!v || *v != std::floor(*v) || *v > 1e9) return std::nullopt;
  return static_cast<int>(*v);
}

// The classes named in `text` (blanks or commas between them), or nullopt
// and `bad` = the first unknown name.
std::optional<std::array<bool, kLinkClassCount>> class_list(std::string text, std::string& bad) {
  std::replace(text.begin(), text.end(), ',', ' ');
  std::array<bool, kLinkClassCount> classes{};
  std::istringstream in(text);
  std::string name;
  while (in >> name) {
    const auto* key = std::find(std::begin(kClassKeys), std::end(kClassKeys), name);
    if (key == std::end(kClassKeys)) {
      bad = name;
      return std::nullopt;
    }
    classes[static_cast<std::size_t>(key - std::begin(kClassKeys))] = true;
  }
  return classes;
}

// A key of MachineOrigin: true if `key` is one (then `error` is set when
// its value is bad), false for any other key.
bool origin_key(const std::string& key, const std::string& value, MachineOrigin& origin, std::string& error) {
  if (key == "topology") {
    origin.topology = value;
  } else if (key == "ranks-per-node" || key == "nodes") {
    const std::optional<int> n = positive_int(value);
    if (!n) error = "'" + value + "' is not a positive integer";
    (key == "nodes" ? origin.nodes : origin.ranks_per_node) = n.value_or(0);
  } else if (key == "measured") {
    std::string bad;
    origin.measured = class_list(value, bad);
    if (!origin.measured) error = "unknown link class '" + bad + "'";
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::optional<MachineModel> builtin_machine(std::string_view name) {
  for (MachineModel& m : builtins()) {
    if (m.name == name) return m;
  }
  return std::nullopt;
}

std::vector<std::string> builtin_machine_names() {
  std::vector<std::string> names;
  for (const MachineModel& m : builtins()) names.push_back(m.name);
  return names;
}

int remote_leaders_for(const MachineModel& m) {
  constexpr double kMost = 1024;
  const double per_rank = m.link[kNetwork].bytes_per_us;
  if (!(per_rank > 0) || !(m.nic_bytes_per_us > 0)) return 1;
  return static_cast<int>(std::clamp(std::round(m.nic_bytes_per_us / per_rank), 1.0, kMost));
}

std::optional<MachineModel> parse_machine(std::string_view text, const MachineModel& base, std::string& error) {
  MachineModel m = base;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string content = trim(line.substr(0, line.find('#')));
    if (content.empty()) continue;
    const auto eq = content.find('=');
    const std::string where = "line " + std::to_string(number) + ": ";
    if (eq == std::string::npos) {
      error = where + "expected key = value";
      return std::nullopt;
    }
    const std::string key = trim(std::string_view(content).substr(0, eq));
    const std::string value = trim(std::string_view(content).substr(eq + 1));
    if (key == "name") {
      m.name = value;
      continue;
    }
    std::string bad;
    if (origin_key(key, value, m.origin, bad)) {
      if (bad.empty()) continue;
      error = where + bad;
      return std::nullopt;
    }
    // burst and floor may be 0 (no bucket, no floor).
    const std::optional<double> v = positive(value, key == "burst" || key == "floor");
    if (!v) {
      error = where;
      error += "'" + value + "' is not a positive number";
      return std::nullopt;
    }
    bool known = true;
    if (key == "nic") {
      m.nic_bytes_per_us = *v;
    } else if (key == "copy") {
      m.copy_bytes_per_us = *v;
    } else if (key == "cores") {
      m.cores = *v;
    } else if (key == "burst") {
      m.burst_bytes = *v;
    } else if (key == "floor") {
      m.floor_us = *v;
    } else {
      known = false;
      for (int c = 0; c < kLinkClassCount; ++c) {
        if (key == std::string("alpha.") + kClassKeys[c]) {
          m.link[static_cast<std::size_t>(c)].alpha_us = *v;
          known = true;
        } else if (key == std::string("rate.") + kClassKeys[c]) {
          m.link[static_cast<std::size_t>(c)].bytes_per_us = *v;
          known = true;
        }
      }
    }
    if (!known) {
      error = where;
      error += "unknown key '" + key + "'";
      return std::nullopt;
    }
  }
  return m;
}

std::string format_machine(const MachineModel& m) {
  std::ostringstream out;
  out.precision(17);
  out << "# nbrcoll machine model: per-message cost (us) and rate (bytes/us) per link class\n";
  out << "name = " << m.name << "\n";
  for (int c = 0; c < kLinkClassCount; ++c) {
    const LinkCost& l = m.link[static_cast<std::size_t>(c)];
    out << "alpha." << kClassKeys[c] << " = " << l.alpha_us << "\n";
    out << "rate." << kClassKeys[c] << " = " << l.bytes_per_us << "\n";
  }
  out << "nic = " << m.nic_bytes_per_us << "\n";
  out << "copy = " << m.copy_bytes_per_us << "\n";
  out << "cores = " << m.cores << "\n";
  out << "burst = " << m.burst_bytes << "\n";
  out << "floor = " << m.floor_us << "\n";
  const MachineOrigin& o = m.origin;
  if (!o.topology.empty()) out << "topology = " << o.topology << "\n";
  if (o.ranks_per_node > 0) out << "ranks-per-node = " << o.ranks_per_node << "\n";
  if (o.nodes > 0) out << "nodes = " << o.nodes << "\n";
  if (o.measured) {
    out << "measured =";
    for (int c = 0; c < kLinkClassCount; ++c) {
      if ((*o.measured)[static_cast<std::size_t>(c)]) out << " " << kClassKeys[c];
    }
    out << "\n";
  }
  return out.str();
}

LoadShape load_shape(const Plan& plan) {
  LoadShape shape;
  const auto add = [](std::vector<LoadShape::Group>& groups, LinkClass link, const Share& share, int waits_on) {
    for (LoadShape::Group& g : groups) {
      if (g.link == link && g.share == share && g.waits_on == waits_on) {
        ++g.count;
        return;
      }
    }
    groups.push_back({link, share, waits_on, 1});
  };
  const auto bundle_in = [](const BundleRecv& b) {
    const auto slots =
        static_cast<std::size_t>(std::count_if(b.slot.begin(), b.slot.end(), [](int s) { return s >= 0; }));
    return LoadShape::BundleIn{b.link, b.pieces.size(), slots};
  };
  for (const Send& s : plan.sends) {
    const int waits_on =
        s.after_recv >= 0 ? static_cast<int>(plan.recvs[static_cast<std::size_t>(s.after_recv)].link) : kLinkClassCount;
    add(shape.sends, s.link, s.share, waits_on);
  }
  for (const Recv& r : plan.recvs) add(shape.recvs, r.link, r.share, kLinkClassCount);
  shape.copies = plan.copies.size();
  for (const BundleSend& b : plan.bundle_sends) {
    LoadShape::BundleOut out{b.link, b.pieces.size(), {}};
    for (const PieceSource& f : b.from) {
      if (f.bundle >= 0) out.waits_on.push_back(bundle_in(plan.bundle_recvs[static_cast<std::size_t>(f.bundle)]));
    }
    shape.bundle_sends.push_back(std::move(out));
  }
  for (const BundleRecv& b : plan.bundle_recvs) shape.bundle_recvs.push_back(bundle_in(b));
  return shape;
}

RankLoad rank_load(const Plan& plan, std::uint64_t block_bytes) {
  return rank_load(load_shape(plan), block_bytes);
}

RankLoad rank_load(const LoadShape& shape, std::uint64_t block_bytes) {
  RankLoad load;
  // The class with the highest index (network last) stands for the wait.
  const auto forwards_from = [&load](int k) {
    load.forwards_from = load.forwards_from == kLinkClassCount ? k : std::max(load.forwards_from, k);
  };
  for (const LoadShape::Group& g : shape.sends) {
    const auto c = static_cast<std::size_t>(g.link);
    const std::uint64_t bytes = share_bytes(g.share, block_bytes).size();
    load.sent_messages[c] += g.count;
    load.sent_bytes[c] += bytes * g.count;
    if (g.waits_on < kLinkClassCount) {
      forwards_from(g.waits_on);
      load.forwarded_bytes += bytes * g.count;
      load.forward_wait_bytes = std::max(load.forward_wait_bytes, bytes);
    }
  }
  for (const LoadShape::Group& g : shape.recvs) {
    const auto c = static_cast<std::size_t>(g.link);
    load.recv_messages[c] += g.count;
    load.recv_bytes[c] += share_bytes(g.share, block_bytes).size() * g.count;
  }
  load.copy_bytes += block_bytes * shape.copies;
  for (const LoadShape::BundleOut& b : shape.bundle_sends) {
    const auto c = static_cast<std::size_t>(b.link);
    const std::uint64_t payload = block_bytes * b.pieces;
    load.sent_messages[c] += static_cast<std::uint64_t>(bundle_messages(b.pieces, payload));
    load.sent_bytes[c] += bundle_header_bytes(b.pieces) + payload;
    load.copy_bytes += payload;  // packed into the bundle
    for (const LoadShape::BundleIn& in : b.waits_on) {
      forwards_from(static_cast<int>(in.link));
      load.forwarded_bytes += block_bytes;
      load.forward_wait_bytes = std::max(load.forward_wait_bytes, block_bytes * in.pieces);
    }
  }
  for (const LoadShape::BundleIn& b : shape.bundle_recvs) {
    const auto c = static_cast<std::size_t>(b.link);
    const std::uint64_t payload = block_bytes * b.pieces;
    load.recv_messages[c] += static_cast<std::uint64_t>(bundle_messages(b.pieces, payload));
    load.recv_bytes[c] += bundle_header_bytes(b.pieces) + payload;
    load.copy_bytes += block_bytes * b.slots;  // unpacked into the slots
  }
  return load;
}

double rank_cpu_us(const RankLoad& load, const MachineModel& m) {
  double per_message = 0;
  double local_wire = 0;
  for (int c = 0; c < kLinkClassCount; ++c) {
    const auto u = static_cast<std::size_t>(c);
    const LinkCost& l = m.link[u];
    per_message += l.alpha_us * static_cast<double>(load.sent_messages[u] + load.recv_messages[u]) / 2;
    if (c != kNetwork)
      local_wire += static_cast<double>(std::max(load.sent_bytes[u], load.recv_bytes[u])) / l.bytes_per_us;
  }
  return per_message + local_wire + static_cast<double>(load.copy_bytes) / m.copy_bytes_per_us;
}

double shared_cpu_us(double own, std::span<const double> node, int ranks_on_node, double cores) {
  const double ranks = std::max(1, ranks_on_node);
  if (ranks <= cores) return own;
  if (node.empty()) return own * ranks / cores;
  double turns = 0;
  for (const double w : node) turns += std::min(w, own);
  return std::max(own, turns / cores);
}

double predict_rank_us(const RankLoad& load, const MachineModel& m, int ranks_on_node, std::uint64_t node_network_bytes,
                       std::span<const double> node_cpu_us) {
  const auto net = static_cast<std::size_t>(kNetwork);
  const double net_bytes = static_cast<double>(std::max(load.sent_bytes[net], load.recv_bytes[net]));
  // Max-rate: the process's own rate, or the NIC's for everything its node
  // moves across nodes (which only a node-wide count knows: a leader or an
  // owner carries far more than the node's average rank).
  // A link's burst (token bucket) leaves at once; the rate holds beyond it.
  const auto beyond_burst = [&m](double bytes) { return std::max(0.0, bytes - m.burst_bytes); };
  const double network = std::max(beyond_burst(net_bytes) / m.link[net].bytes_per_us,
                                  beyond_burst(static_cast<double>(node_network_bytes)) / m.nic_bytes_per_us);
  // Store and forward: what a rank forwards leaves only after it arrived;
  // later inputs overlap with earlier forwards, the first one does not.
  double wait = 0;
  if (load.forwards_from < kLinkClassCount) {
    const LinkCost& in = m.link[static_cast<std::size_t>(load.forwards_from)];
    wait = in.alpha_us + static_cast<double>(load.forward_wait_bytes) / in.bytes_per_us;
  }
  // Intra-node bytes move by CPU copies here; with more ranks than cores
  // the CPU work of the node's ranks takes turns. An input that crosses the
  // network arrives while this rank's own network bytes move (the link is
  // full duplex, and its own receive of that input is among them), so the
  // wait for it overlaps the network time; an input from inside the node
  // must arrive before what it feeds onto the network can leave.
  const double cpu = shared_cpu_us(rank_cpu_us(load, m), node_cpu_us, ranks_on_node, m.cores);
  return load.forwards_from == kNetwork ? cpu + std::max(network, wait) : cpu + network + wait;
}

NetworkBlocks node_network_block_counts(const PlanInput& input) {
  const auto node = [&input](int r) { return input.places[static_cast<std::size_t>(r)].node; };
  const int mine = node(input.rank);
  std::vector<std::uint64_t> keys;  // (source, remote node) for the deduplicating plans
  const auto count = [&](const std::vector<std::pair<int, std::vector<int>>>& lists, bool out) {
    keys.clear();
    std::uint64_t edges = 0;
    for (const auto& [rank, list] : lists) {
      for (const int peer : list) {
        if (peer == kNoRank || node(peer) == mine) continue;
        ++edges;
        keys.push_back(out ? static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint32_t>(node(peer))
                           : static_cast<std::uint64_t>(peer));
      }
    }
    std::sort(keys.begin(), keys.end());
    return NetworkBlocks{edges, static_cast<std::uint64_t>(std::unique(keys.begin(), keys.end()) - keys.begin())};
  };
  const NetworkBlocks sent = count(input.node_out, true);
  const NetworkBlocks received = count(input.node_in, false);
  return {std::max(sent.per_edge, received.per_edge), std::max(sent.per_source, received.per_source)};
}

std::uint64_t node_network_blocks(const PlanInput& input, Variant v, bool alltoall) {
  // Per edge, or per (source, remote node) for the deduplicating allgathers.
  const NetworkBlocks n = node_network_block_counts(input);
  return v == Variant::kLinear || alltoall ? n.per_edge : n.per_source;
}

std::uint64_t node_network_bytes(const PlanInput& input, Variant v, bool alltoall, std::uint64_t block_bytes) {
  return block_bytes * node_network_blocks(input, v, alltoall);
}

double predict_call_us(const PlanInput& input, const Plan& plan, Variant v, bool alltoall, const MachineModel& m,
                       int ranks_on_node, std::uint64_t block_bytes) {
  return predict_rank_us(rank_load(plan, block_bytes), m, ranks_on_node,
                         node_network_bytes(input, v, alltoall, block_bytes));
}

std::vector<std::int64_t> predict_row_ns(const PlanInput& input, const Plan& plan, Variant v, bool alltoall,
                                         const MachineModel& m, int ranks_on_node) {
  return predict_row_ns(plan, m, ranks_on_node, node_network_blocks(input, v, alltoall));
}

std::vector<std::int64_t> predict_row_ns(const Plan& plan, const MachineModel& m, int ranks_on_node,
                                         std::uint64_t node_blocks) {
  return predict_row_ns(load_shape(plan), m, ranks_on_node, node_blocks);  // the shape is not per size
}

std::vector<std::int64_t> predict_row_ns(const LoadShape& shape, const MachineModel& m, int ranks_on_node,
                                         std::uint64_t node_blocks, std::span<const LoadShape> node_shapes) {
  std::vector<std::int64_t> row;
  row.reserve(kModelSizeCount);
  std::vector<double> node_cpu(node_shapes.size());
  for (const std::uint64_t b : model_sizes()) {
    for (std::size_t i = 0; i < node_shapes.size(); ++i) node_cpu[i] = rank_cpu_us(rank_load(node_shapes[i], b), m);
    const double us = predict_rank_us(rank_load(shape, b), m, ranks_on_node, b * node_blocks, node_cpu);
    row.push_back(static_cast<std::int64_t>(std::min(us * 1000.0, 9.0e18)));
  }
  return row;
}

int ranks_on_node(const PlanInput& input) {
  const int mine = input.places[static_cast<std::size_t>(input.rank)].node;
  return static_cast<int>(
      std::count_if(input.places.begin(), input.places.end(), [mine](const RankPlace& p) { return p.node == mine; }));
}

const std::vector<std::uint64_t>& model_sizes() {
  static const std::vector<std::uint64_t> sizes = [] {
    std::vector<std::uint64_t> s = {0};
    for (std::uint64_t b = 64; b <= (std::uint64_t{64} << 20); b *= 2) s.push_back(b);
    return s;
  }();
  return sizes;
}

namespace {

// The model-size segment [s[i], s[i+1]] holding `bytes`, or the last one
// beyond it: i.
std::size_t segment_of(std::uint64_t bytes) {
  const std::vector<std::uint64_t>& s = model_sizes();
  std::size_t i = 0;
  while (i + 2 < s.size() && bytes > s[i + 1]) ++i;
  return i;
}

// A row's time at `bytes`, linear within segment i.
std::uint64_t interpolate(const std::vector<std::uint64_t>& t, std::size_t i, std::uint64_t bytes) {
  const std::vector<std::uint64_t>& s = model_sizes();
  const Wide dx = static_cast<Wide>(s[i + 1]) - s[i];
  const Wide dy = static_cast<Wide>(t[i + 1]) - t[i];
  const Wide y = static_cast<Wide>(t[i]) + dy * (static_cast<Wide>(bytes) - s[i]) / dx;
  return y < 0 ? 0 : static_cast<std::uint64_t>(std::min<Wide>(y, ~std::uint64_t{0}));
}

}  // namespace

namespace {

// The row with the least time at `bytes` other than `skipped` (ties: the
// earlier row); linear where no row is left.
Variant cheapest_row(const CostTable& t, std::uint64_t bytes, std::optional<Variant> skipped) {
  const std::size_t segment = segment_of(bytes);
  Variant best = Variant::kLinear;
  std::uint64_t best_time = ~std::uint64_t{0};
  bool found = false;
  for (std::size_t r = 0; r < t.variants.size(); ++r) {
    if (t.variants[r] == skipped) continue;
    const std::uint64_t time = interpolate(t.time_ns[r], segment, bytes);
    if (!found || time < best_time) {  // ties: the earlier row
      best = t.variants[r];
      best_time = time;
      found = true;
    }
  }
  return best;
}

}  // namespace

std::uint64_t CostTable::at(Variant v, std::uint64_t bytes) const {
  const auto row = std::find(variants.begin(), variants.end(), v);
  if (row == variants.end()) return ~std::uint64_t{0};
  return interpolate(time_ns[static_cast<std::size_t>(row - variants.begin())], segment_of(bytes), bytes);
}

Variant CostTable::cheapest(std::uint64_t bytes) const {
  return cheapest_row(*this, bytes, std::nullopt);
}

Variant CostTable::cheapest_except(Variant skipped, std::uint64_t bytes) const {
  return variants.size() == 1 ? variants.front() : cheapest_row(*this, bytes, skipped);
}

bool CostTable::ever_cheapest(Variant v) const {
  return std::any_of(model_sizes().begin(), model_sizes().end(), [&](std::uint64_t b) { return cheapest(b) == v; });
}

void CostTable::drop(Variant v) {
  const auto row = std::find(variants.begin(), variants.end(), v);
  if (row == variants.end() || variants.size() == 1) return;
  time_ns.erase(time_ns.begin() + (row - variants.begin()));
  variants.erase(row);
}

namespace {

// Whether the aggregated row may stay in what auto chooses from: it is
// predicted kBundleMargin faster than every other row at some model size
// (or there is nothing to drop).
bool bundles_win_clearly(const CostTable& t) {
  const auto agg = std::find(t.variants.begin(), t.variants.end(), Variant::kAggregated);
  if (agg == t.variants.end() || t.variants.size() < 2) return true;
  const std::vector<std::uint64_t>& mine = t.time_ns[static_cast<std::size_t>(agg - t.variants.begin())];
  for (std::size_t k = 0; k < mine.size(); ++k) {
    std::uint64_t best_other = ~std::uint64_t{0};
    for (std::size_t v = 0; v < t.variants.size(); ++v) {
      if (t.variants[v] != Variant::kAggregated) best_other = std::min(best_other, t.time_ns[v][k]);
    }
    if (static_cast<double>(mine[k]) <= (1.0 - kBundleMargin) * static_cast<double>(best_other)) return true;
  }
  return false;
}

// Every forwarding row, wherever it is not kForwardMargin faster than
// linear, just above linear's time.
void lift_narrow_wins(CostTable& t) {
  const auto linear = std::find(t.variants.begin(), t.variants.end(), Variant::kLinear);
  if (linear == t.variants.end()) return;
  // Linear's row is not changed below: a reference to it stays valid.
  const std::vector<std::uint64_t>& base = t.time_ns[static_cast<std::size_t>(linear - t.variants.begin())];
  for (std::size_t v = 0; v < t.variants.size(); ++v) {
    if (t.variants[v] == Variant::kLinear) continue;
    std::vector<std::uint64_t>& row = t.time_ns[v];
    for (std::size_t k = 0; k < row.size() && k < base.size(); ++k) {
      if (static_cast<double>(row[k]) > (1.0 - kForwardMargin) * static_cast<double>(base[k]))
        row[k] = std::max(row[k], base[k] + 1);
    }
  }
}

}  // namespace

CostTable CostTable::offered() const {
  // This table's rows, the aggregated one only where it wins clearly;
  // rows left out are never copied.
  const bool keep_aggregated = bundles_win_clearly(*this);
  CostTable out;
  out.variants.reserve(variants.size());
  out.time_ns.reserve(variants.size());
  for (std::size_t r = 0; r < variants.size(); ++r) {
    if (variants[r] == Variant::kAggregated && !keep_aggregated) continue;
    out.variants.push_back(variants[r]);
    out.time_ns.push_back(time_ns[r]);
  }
  lift_narrow_wins(out);
  return out;
}

std::string CostTable::describe() const {
  const auto size = [](std::uint64_t b) {
    return b >= (1U << 20) ? std::to_string(b >> 20) + "M"
           : b >= 1024     ? std::to_string(b >> 10) + "K"
                           : std::to_string(b);
  };
  std::string out = variant_name(cheapest(0));
  Variant current = cheapest(0);
  for (std::uint64_t b = 1; b <= model_sizes().back(); b *= 2) {
    const Variant v = cheapest(b);
    if (v == current) continue;
    out += std::string(" < ") + size(b) + " <= " + variant_name(v);
    current = v;
  }
  return out;
}

Variant nonblocking_variant(const CostTable& table, std::uint64_t bytes) {
  if (bytes < kForwardedNonblockingBlock) return Variant::kLinear;
  const Variant v = table.cheapest_except(Variant::kAggregated, bytes);
  return v == Variant::kAggregated ? Variant::kLinear : v;  // a table of aggregated alone
}

}  // namespace nbrcoll::algos
