// nbrcoll-calibrate: measures this machine for nbrcoll's cost model
// (per-message cost and process rate per link class, NIC and copy rates,
// cores per node) and prints a machine file; see bench/model/README.md.
// Linked with nbrcoll_static: pairs of ranks are classified by nbrcoll's
// own plans, exactly as the library classifies them.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "bench/core/sizes.h"
#include "bench/model/calibrate_core.h"
#include "bench/model/calibrate_measure.h"
#include "bench/model/calibrate_options.h"
#include "nbrcoll/nbrcoll.h"
#include "support/config.h"
#include "topo/node_topology.h"

using namespace nbrcalib;
namespace algos = nbrcoll::algos;

namespace {

constexpr std::uint64_t kSmallBytes = 8;
constexpr int kHostKeyChars = 64;
// The burst probe: node 0's ranks send this much in all after a pause long
// enough for a 1 Gbit/s link's token bucket of 2 MiB to refill.
constexpr std::uint64_t kBurstProbeBytes = 1024 * 1024;
constexpr int kBurstPauseMs = 20;
// The floor's exchange: calls timed (after the warm-up ones).
constexpr int kFloorCalls = 200;
constexpr int kFloorWarmup = 10;

struct Measured {
  std::array<bool, kLinkClassCount> have{};
  std::array<algos::LinkCost, kLinkClassCount> link{};
  std::array<std::pair<int, int>, kLinkClassCount> pair{};
  double nic_alone = 0;   // node 0 to node 1, the other nodes quiet (0: one node, not measured)
  double nic_loaded = 0;  // every node to the next at once
  [[nodiscard]] double nic() const { return std::min(nic_alone, nic_loaded); }
  double nic_paused = 0;  // node 0 to node 1, burst_probe bytes after a pause
  std::uint64_t burst_probe = 0;
  std::vector<std::vector<int>> exchange_peers;  // the floor's exchange
  double exchange_us = 0;
  double copy = 0;
  Cores cores;
};

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  // The first line up to a comma, blanks collapsed ("MPICH Version:\t4.0.2").
  const std::string all(text, static_cast<std::size_t>(len));
  std::string s;
  for (const char c : all.substr(0, all.find_first_of("\n,"))) {
    const bool blank = c == ' ' || c == '\t';
    if (!blank || (!s.empty() && s.back() != ' ')) s += blank ? ' ' : c;
  }
  return s;
}

Cores detect_cores(const std::vector<int>& node_of) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char key[kHostKeyChars] = {};
  const std::string mine = host_key();
  mine.copy(key, kHostKeyChars - 1);
  std::vector<char> keys(static_cast<std::size_t>(size) * kHostKeyChars);
  MPI_Allgather(key, kHostKeyChars, MPI_CHAR, keys.data(), kHostKeyChars, MPI_CHAR, MPI_COMM_WORLD);
  const std::vector<std::uint64_t> mask = cpu_mask();
  const int words = static_cast<int>(mask.size());
  std::vector<std::uint64_t> masks(static_cast<std::size_t>(size) * mask.size());
  MPI_Allgather(mask.data(), words, MPI_UINT64_T, masks.data(), words, MPI_UINT64_T, MPI_COMM_WORLD);
  std::vector<std::string> host_of;
  std::vector<std::vector<std::uint64_t>> mask_of;
  for (int r = 0; r < size; ++r) {
    host_of.emplace_back(&keys[static_cast<std::size_t>(r) * kHostKeyChars]);
    const auto first = masks.begin() + static_cast<std::ptrdiff_t>(r) * words;
    mask_of.emplace_back(first, first + words);
  }
  return cores_per_node(host_of, node_of, mask_of);
}

Measured measure(const CalibrateOptions& o, const std::vector<std::uint8_t>& classes, const std::vector<int>& node_of) {
  const int size = static_cast<int>(node_of.size());
  Measured m;
  m.pair = first_pairs(classes, size);
  for (int c = 0; c < kLinkClassCount; ++c) {
    const auto [a, b] = m.pair[static_cast<std::size_t>(c)];
    if (a < 0) continue;
    auto& link = m.link[static_cast<std::size_t>(c)];
    link.alpha_us = one_way_us(MPI_COMM_WORLD, a, b, kSmallBytes, o.small_iters, std::max(1, o.small_iters / 10));
    link.bytes_per_us = static_cast<double>(o.large) / one_way_us(MPI_COMM_WORLD, a, b, o.large, o.reps, 1);
    m.have[static_cast<std::size_t>(c)] = true;
  }
  if (const int nodes = *std::max_element(node_of.begin(), node_of.end()) + 1; nodes > 1) {
    // A node's rate alone, and while every node sends (as in a halo
    // exchange): where the nodes share what moves the bytes (emulated
    // nodes on one host's cores, a tapered network) the second is less.
    m.nic_alone = node_bytes_per_us(MPI_COMM_WORLD, node_of, {{0, 1}}, o.large, o.reps);
    std::vector<NodeFlow> ring;
    for (int n = 0; n < nodes; ++n) ring.push_back({n, (n + 1) % nodes});
    m.nic_loaded = node_bytes_per_us(MPI_COMM_WORLD, node_of, ring, o.large, o.reps);
    const auto senders = static_cast<std::uint64_t>(std::count(node_of.begin(), node_of.end(), 0));
    const std::uint64_t each = kBurstProbeBytes / senders;
    m.burst_probe = each * senders;
    m.nic_paused = node_bytes_per_us(MPI_COMM_WORLD, node_of, {{0, 1}}, each, o.reps, kBurstPauseMs);
  }
  m.exchange_peers = halo_peers(node_of);
  m.exchange_us = exchange_us(MPI_COMM_WORLD, m.exchange_peers, kSmallBytes, kFloorCalls, kFloorWarmup);
  m.copy = copy_bytes_per_us(MPI_COMM_WORLD, o.copy_bytes, o.reps);
  m.cores = detect_cores(node_of);
  return m;
}

// The machine and the comments that say how each value was found.
std::string describe(const CalibrateOptions& o, const Measured& m, const std::vector<std::uint8_t>& classes,
                     const std::vector<int>& node_of, double seconds, algos::MachineModel& model) {
  const int nodes = *std::max_element(node_of.begin(), node_of.end()) + 1;
  int on_node0 = 0;
  for (const int n : node_of) on_node0 += n == 0 ? 1 : 0;
  const std::string large = nbrbench::format_size(o.large);
  std::vector<std::string> notes;
  notes.push_back("nbrcoll machine file written by nbrcoll-calibrate " + std::string(NBRCOLL_VERSION_STRING));
  const std::string topology = nbrcoll::topo::load_topology(nbrcoll::config().topo).topology.source;
  notes.push_back(std::to_string(node_of.size()) + " ranks on " + std::to_string(nodes) +
                  " nodes as nbrcoll sees them (" + std::to_string(on_node0) + " on node 0), topology " + topology +
                  ", " + mpi_library());
  notes.push_back(
      "topology, ranks-per-node, nodes, measured: what it ran on and the classes a pair measured; "
      "nbrcoll takes the classes a run uses and this file did not measure from its built-in machine");
  model.origin = {topology, on_node0, nodes, m.have};
  notes.push_back("alpha.CLASS: one-way time of an 8-byte message (half a round trip, median of " +
                  std::to_string(o.small_iters) + "); rate.CLASS: " + large +
                  " ping-pong, bytes / one-way time (median of " + std::to_string(o.reps) + ")");
  model.name = o.name;
  const auto source = value_sources(m.have);
  for (int c = 0; c < kLinkClassCount; ++c) {
    const auto u = static_cast<std::size_t>(c);
    const char* name = algos::link_class_name(static_cast<algos::LinkClass>(c));
    const int from = source[u];
    if (from < 0) continue;  // nothing measured (cannot happen with 2 ranks or more)
    model.link[u] = m.link[static_cast<std::size_t>(from)];
    if (from == c)
      notes.push_back(std::string(name) + ": ranks " + std::to_string(m.pair[u].first) + " and " +
                      std::to_string(m.pair[u].second));
    else
      notes.push_back(std::string(name) + ": no pair of ranks here; the values of " +
                      algos::link_class_name(static_cast<algos::LinkClass>(from)) + " (nearest measured class)");
  }
  const auto network = static_cast<std::size_t>(algos::LinkClass::kNetwork);
  if (m.nic() > 0) {
    model.nic_bytes_per_us = m.nic();
    char rates[96];
    std::snprintf(rates, sizeof rates, " (%.1f and %.1f)", m.nic_alone, m.nic_loaded);
    notes.push_back("nic: the lesser of node bytes / time of the slowest rank (median of " + std::to_string(o.reps) +
                    ") where the " + std::to_string(on_node0) + " ranks of node 0 send " + large +
                    " each to node 1, and where every node's ranks send to the next node at once" + rates);
  } else {
    model.nic_bytes_per_us = on_node0 * model.link[network].bytes_per_us;
    notes.push_back("nic: one node here, not measured; ranks on node 0 x rate.network (never the bound)");
  }
  model.copy_bytes_per_us = m.copy;
  notes.push_back("copy: memcpy of " + nbrbench::format_size(o.copy_bytes) + " on rank 0 (median of " +
                  std::to_string(o.reps) + ")");
  if (o.cores) {
    model.cores = *o.cores;
    notes.push_back("cores: given by --cores");
  } else {
    model.cores = m.cores.per_node;
    notes.push_back("cores: " + std::to_string(m.cores.host_cpus) + " CPUs the ranks may use on a host, shared by " +
                    std::to_string(m.cores.nodes_on_host) + " node(s) on it (" + std::to_string(m.cores.hosts) +
                    " host(s), by boot id); --cores overrides");
  }
  if (m.burst_probe > 0) {
    const auto probe = static_cast<double>(m.burst_probe);
    model.burst_bytes = burst_bytes(probe, m.nic_paused, m.nic_alone);
    char text[512];  // the line with room for any numbers
    std::snprintf(text, sizeof text,
                  "burst: what node 0's link sends at once after a pause: its ranks send %s in all to node 1 after "
                  "%d ms asleep, %.1f bytes/us against %.1f without the pause (median of %d); the probe x (1 - "
                  "%.1f / %.1f), 0 below a twentieth of the probe",
                  nbrbench::format_size(m.burst_probe).c_str(), kBurstPauseMs, m.nic_paused, m.nic_alone, o.reps,
                  m.nic_alone, m.nic_paused);
    notes.emplace_back(text);
  } else {
    notes.emplace_back("burst: one node here, not measured");
  }
  {
    // The model's own prediction of the exchange (predict_rank_us leaves
    // the floor out): the floor is what it does not explain.
    const algos::RankLoad load = exchange_load(m.exchange_peers, 0, classes, kSmallBytes);
    const std::uint64_t node_bytes = static_cast<std::uint64_t>(on_node0) * load.sent_bytes[network];
    const double predicted = algos::predict_rank_us(load, model, on_node0, node_bytes);
    model.floor_us = std::max(0.0, m.exchange_us - predicted);
    char text[512];  // the line with room for any numbers
    std::snprintf(text, sizeof text,
                  "floor: what a call takes beyond the model's terms with every rank taking part: each rank sends "
                  "8 bytes to the rank of its index on the next node and on the previous one, %.1f us (the slowest "
                  "rank, median of %d calls) less the model's %.1f us",
                  m.exchange_us, kFloorCalls, predicted);
    notes.emplace_back(text);
  }
  char took[64];
  std::snprintf(took, sizeof took, "measured in %.1f s", seconds);
  notes.emplace_back(took);
  return machine_file(model, notes);
}

// NBRCOLL_CLUSTER_FINALIZE_DIR (bench/cluster/run.sh under MPICH): this
// rank's exit status in DIR/finalize.RANK just before MPI_Finalize, so that
// run.sh can end a job whose MPI hangs there.
void finalize_marker(int rank, int status) {
  std::fflush(nullptr);
  const char* dir = std::getenv("NBRCOLL_CLUSTER_FINALIZE_DIR");
  if (dir == nullptr || *dir == '\0') return;
  std::ofstream(std::string(dir) + "/finalize." + std::to_string(rank)) << status << '\n';
}

int run(const CalibrateOptions& o, int rank, int size) {
  if (size < 2) {
    if (rank == 0) std::cerr << "nbrcoll-calibrate: needs at least 2 ranks (mpirun -np 16 ...)\n";
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::uint8_t> classes = link_classes(MPI_COMM_WORLD);
  if (classes.empty()) {
    if (rank == 0) std::cerr << "nbrcoll-calibrate: nbrcoll holds no plan for a graph here (NBRCOLL_DISABLE=1?)\n";
    return 1;
  }
  const std::vector<int> node_of = nodes_from_classes(classes, size);
  const Measured m = measure(o, classes, node_of);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (rank != 0) return 0;
  algos::MachineModel model;
  const std::string text = describe(o, m, classes, node_of, took.count(), model);
  std::cout << text;
  std::string error;
  const auto back = algos::parse_machine(text, algos::MachineModel{}, error);
  if (!back) {
    std::cerr << "nbrcoll-calibrate: the machine file does not parse: " << error << "\n";
    return 1;
  }
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::trunc);
    f << text;
    f.close();
    if (!f) {
      std::cerr << "nbrcoll-calibrate: cannot write '" << o.out << "'\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // --version and --help answer without starting MPI.
  CalibrateOptions o;
  std::string usage_error;
  try {
    o = parse_calibrate_options({argv + 1, argv + argc});
  } catch (const std::invalid_argument& e) {
    usage_error = e.what();
  }
  if (usage_error.empty() && (o.help || o.version)) {
    if (o.help) std::cout << calibrate_usage();
    if (o.version) std::cout << "nbrcoll-calibrate (nbrcoll) " << NBRCOLL_VERSION_STRING << "\n";
    return 0;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 2;
  if (!usage_error.empty()) {
    if (rank == 0) std::cerr << "nbrcoll-calibrate: " << usage_error << "\n";
  } else {
    status = run(o, rank, size);
  }
  finalize_marker(rank, status);
  MPI_Finalize();
  return status;
}
