// The cost model behind `auto`: what one call of a plan costs on a machine,
// from the plan's messages and bytes per link class (algos/README.md, "Cost
// model"). Pure: no MPI, no clock. The library evaluates it once per graph at
// a fixed set of block sizes, takes the maximum over ranks (one agreement at
// graph creation), and every call picks, per block, the variant whose
// predicted time at its size is least: the same integers on every rank, so
// the same choice without talking.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algos/mixed_plan.h"
#include "algos/plan.h"

namespace nbrcoll::algos {

// One link class: per-message cost (us; a ping's one-way time: both ends'
// software and the wire's latency) and the rate one process moves bytes at.
struct LinkCost {
  double alpha_us = 1.0;
  double bytes_per_us = 1000.0;
};

// What a machine file says it was measured on (nbrcoll-calibrate records
// it; the built-ins, older files and hand-written ones leave it unset): so
// that a process running on another topology or node shape knows which of
// the file's link classes it can trust (algos/machine_check.h).
struct MachineOrigin {
  std::string topology;    // the node topology's source as nbrcoll names it ("model:frontier", "flat"); empty: not said
  int ranks_per_node = 0;  // ranks on the measured node (node 0); 0: not said
  int nodes = 0;           // nodes the calibration ran on; 0: not said
  // Per link class: whether a pair of ranks of that class was measured
  // (the others were filled in from another class). nullopt: not said.
  std::optional<std::array<bool, kLinkClassCount>> measured;
  friend bool operator==(const MachineOrigin&, const MachineOrigin&) = default;
};

struct MachineModel {
  std::string name;
  std::array<LinkCost, kLinkClassCount> link{};  // indexed by LinkClass
  double nic_bytes_per_us = 12500.0;             // what one node injects into the network (R_N), all its ranks together
  double copy_bytes_per_us = 10000.0;            // a local memcpy (bundle packing, duplicate-slot copies)
  double cores = 64.0;                           // CPU cores the ranks of one node share
  // Bytes a node's network link carries at once after a pause before its
  // rate (nic, rate.network) holds: a token bucket's depth (the emulated
  // cluster's tc tbf links). 0: the rate holds from the first byte.
  double burst_bytes = 0.0;
  // What a call costs beyond every term above where all ranks take part (us):
  // on ranks that outnumber their cores, each message waits for its
  // receiver to be scheduled. nbrcoll-calibrate measures it as a tiny
  // exchange's time less the model's own prediction of it. 0: none.
  // The same for every plan, it is left out of predict_rank_us and the
  // tables auto chooses from (their margins are ratios, which a floor
  // would shrink) and added to the times the tools report (reported_us).
  double floor_us = 0.0;
  MachineOrigin origin;  // what a machine file says it measured
};

// Built-in machines: "frontier" (HPE Cray EX, 4 x MI250X, Slingshot-11),
// "mi250" (the paper's 4 x MI250 PCIe server, InfiniBand HDR), "mi300x"
// (8 x MI300X, 400G NIC per GPU), "dgx-h100", "generic" (a commodity
// cluster node, 100 Gb/s), "emulated" (this project's emulated cluster:
// network namespaces on one 2-core host, 1 Gbit/s links).
std::optional<MachineModel> builtin_machine(std::string_view name);
std::vector<std::string> builtin_machine_names();

// How many ranks of a node it takes to fill the node's network link: the
// node's rate over one rank's (nic / rate.network), rounded, at least 1
// and at most 1024. The leader plan splits a block over at most that many
// leaders on another node (PlanInput::remote_leaders): a split over more
// adds messages and moves nothing sooner. Frontier: 8 (every package
// group), one NIC a rank can fill (the emulated cluster, generic): 1.
int remote_leaders_for(const MachineModel& m);

// A machine from text: `key = value` lines, `#` comments. Keys: name,
// alpha.<class> and rate.<class> for the classes same-device, same-package,
// xgmi-linked, multi-hop, network (us and bytes/us), nic, copy (bytes/us),
// cores, burst (bytes) and floor (us), both may be 0; and what it was measured on (MachineOrigin): topology (text),
// ranks-per-node and nodes (positive integers), measured (the measured
// classes' names, separated by blanks or commas; may be empty). Missing
// keys keep `base`'s values (a file without `measured` says nothing of what
// it measured: older files, hand-written ones). nullopt and `error` (with
// the line number) on an unknown key, an unknown class name, or a value
// that is not a positive number.
std::optional<MachineModel> parse_machine(std::string_view text, const MachineModel& base, std::string& error);
// The same format, every key (the origin's only where set), so that
// parse_machine(format_machine(m)) == m.
std::string format_machine(const MachineModel& m);

// What one rank's plan moves in one call with every block `block_bytes`
// long (bundles: every piece present), for the model and for reports.
struct RankLoad {
  std::array<std::uint64_t, kLinkClassCount> sent_messages{};
  std::array<std::uint64_t, kLinkClassCount> sent_bytes{};
  std::array<std::uint64_t, kLinkClassCount> recv_messages{};
  std::array<std::uint64_t, kLinkClassCount> recv_bytes{};
  std::uint64_t copy_bytes = 0;  // local copies, bundle packing and unpacking
  // The slowest class this rank receives something on that it forwards
  // (kLinkClassCount: it forwards nothing), the bytes it forwards, and the
  // largest single message it must receive before it can forward.
  int forwards_from = kLinkClassCount;
  std::uint64_t forwarded_bytes = 0;
  std::uint64_t forward_wait_bytes = 0;
};
RankLoad rank_load(const Plan& plan, std::uint64_t block_bytes);

// What rank_load reads of a plan, its fragments grouped by what their load
// depends on (link class, share of the block, the class a forward waits
// on): the cost rows evaluate it at every model size, so they walk a few
// groups per size instead of every fragment.
struct LoadShape {
  struct Group {
    LinkClass link = LinkClass::kNetwork;
    Share share;
    int waits_on = kLinkClassCount;  // a forward: the class of the receive it waits for
    std::uint64_t count = 0;
    friend bool operator==(const Group&, const Group&) = default;
  };
  struct BundleIn {
    LinkClass link = LinkClass::kNetwork;
    std::size_t pieces = 0;
    std::size_t slots = 0;  // pieces that fill a slot here
    friend bool operator==(const BundleIn&, const BundleIn&) = default;
  };
  struct BundleOut {
    LinkClass link = LinkClass::kNetwork;
    std::size_t pieces = 0;
    std::vector<BundleIn> waits_on;  // per piece carried on: the bundle it came in
    friend bool operator==(const BundleOut&, const BundleOut&) = default;
  };
  std::vector<Group> sends;
  std::vector<Group> recvs;
  std::uint64_t copies = 0;
  std::vector<BundleOut> bundle_sends;
  std::vector<BundleIn> bundle_recvs;
  // Plans of equal shape cost alike at every size (a linear allgather plan
  // and its alltoall twin, mostly).
  friend bool operator==(const LoadShape&, const LoadShape&) = default;
};
LoadShape load_shape(const Plan& plan);
RankLoad rank_load(const LoadShape& shape, std::uint64_t block_bytes);

// A predicted time as the tools report it: with the machine's floor.
inline double reported_us(double predicted_us, const MachineModel& m) {
  return predicted_us + m.floor_us;
}

// The time one rank spends in one call (us), the floor left out: per-message cost at both ends,
// the bytes at the process rate or, across nodes, at the rate the node's NIC
// gives all of the node's network bytes (max-rate) beyond the link's burst, copies, and for a rank
// that forwards, the wait for what it forwards (store and forward: overlapping
// the network time where that input comes from another node, after it
// where it comes from inside the node). CPU work is stretched when more
// ranks than cores share a node (shared_cpu_us): by the works in
// `node_cpu_us` (rank_cpu_us of every rank on the node, this one's
// included) where given, else as if each rank did this rank's work.
double predict_rank_us(const RankLoad& load, const MachineModel& m, int ranks_on_node, std::uint64_t node_network_bytes,
                       std::span<const double> node_cpu_us = {});

// A rank's CPU work in one call on a core of its own (us): the per-message
// cost at both ends, the node-internal bytes (moved by CPU copies) and the
// local copies.
double rank_cpu_us(const RankLoad& load, const MachineModel& m);

// CPU work `own` (us) when `ranks_on_node` ranks share `cores` cores, each
// core shared fairly among the ranks that still have work: a rank finishes
// once every rank has spent min(its work, `own`), so its time is the sum of
// those over `cores`, and never less than `own`. `node` holds every rank's
// work (this one's included); empty: every rank works `own`, which gives
// own * max(1, ranks / cores). A bundle's owner or a leader works far more
// than its node's average rank, which a stretch by ranks / cores alone
// charges to every rank.
double shared_cpu_us(double own, std::span<const double> node, int ranks_on_node, double cores);

// The bytes the ranks of `input.rank`'s node send to other nodes or receive
// from them in one call of variant `v` (the larger direction), every block
// `block_bytes` long: from the node's in- and out-lists, no plan needed
// (linear: one block per edge; leader and aggregated allgather: one per
// source and remote node; aggregated alltoall: one per edge; bundle headers
// not counted).
std::uint64_t node_network_bytes(const PlanInput& input, Variant v, bool alltoall, std::uint64_t block_bytes);
// The same in blocks (node_network_bytes is this times block_bytes).
std::uint64_t node_network_blocks(const PlanInput& input, Variant v, bool alltoall);
// Both counts node_network_blocks gives, from one pass over the node's
// lists: per edge (linear, the alltoalls) and per (source, remote node)
// (the deduplicating allgathers, leader and aggregated).
struct NetworkBlocks {
  std::uint64_t per_edge = 0;
  std::uint64_t per_source = 0;
};
NetworkBlocks node_network_block_counts(const PlanInput& input);

// The library's rule in one place: `input.rank`'s time (us) in one call of
// `plan` (variant `v` of the allgather or alltoall plans), every block
// `block_bytes` long, on machine `m`, `ranks_on_node` ranks on its node.
double predict_call_us(const PlanInput& input, const Plan& plan, Variant v, bool alltoall, const MachineModel& m,
                       int ranks_on_node, std::uint64_t block_bytes);
// predict_call_us at every model size, in ns (integers, as the agreement
// and the cost tables hold them), in one pass: the node's network blocks
// do not depend on the size and are counted once.
std::vector<std::int64_t> predict_row_ns(const PlanInput& input, const Plan& plan, Variant v, bool alltoall,
                                         const MachineModel& m, int ranks_on_node);
// The same with the node's network blocks already counted
// (node_network_blocks: one count serves every variant that counts alike).
std::vector<std::int64_t> predict_row_ns(const Plan& plan, const MachineModel& m, int ranks_on_node,
                                         std::uint64_t node_blocks);
// `node_shapes`: the load shapes of every rank on the node (this one's
// included) for shared_cpu_us; empty: every rank's work taken as this one's.
std::vector<std::int64_t> predict_row_ns(const LoadShape& shape, const MachineModel& m, int ranks_on_node,
                                         std::uint64_t node_blocks, std::span<const LoadShape> node_shapes = {});
// The ranks of `input.rank`'s node (from input.places).
int ranks_on_node(const PlanInput& input);

// The block sizes the library evaluates the model at (bytes, increasing):
// 0 and every power of two from 64 bytes to 64 MiB.
inline constexpr std::size_t kModelSizeCount = 22;
const std::vector<std::uint64_t>& model_sizes();

// How much faster than every other variant the aggregated one must be
// predicted at some size before auto offers it (a fraction of the time).
inline constexpr double kBundleMargin = 0.25;

// How much faster than linear a forwarding variant (leader, aggregated) must
// be predicted at a model size before auto takes it there (a fraction of
// linear's time). The model knows forwarding least well: on the emulated
// cluster its median error over 8 sizes was 161% for leader against 23% for
// linear (RSG allgather, bench/RESULTS.md "Model error per plan and size"),
// and Moore r=1 at 4 KiB, predicted 15% faster by leader, ran 20% slower
// (2026-11-25, when this margin came in at 0c6addd). A narrower predicted
// win stays linear.
inline constexpr double kForwardMargin = 0.2;

// Predicted time (ns) per variant and model size: the maximum over ranks.
// Integers, so every rank that holds the same table decides the same.
struct CostTable {
  std::vector<Variant> variants;                    // rows
  std::vector<std::vector<std::uint64_t>> time_ns;  // [row][model size]
  // The time of `v` for a block of `bytes`: linear between model sizes,
  // extended by the last two beyond them. Exact integer arithmetic.
  [[nodiscard]] std::uint64_t at(Variant v, std::uint64_t bytes) const;
  // The row with the least time at `bytes` (ties: the earlier row; an
  // empty table: linear).
  [[nodiscard]] Variant cheapest(std::uint64_t bytes) const;
  // The same among the rows other than `skipped` (every row where it is
  // the only one).
  [[nodiscard]] Variant cheapest_except(Variant skipped, std::uint64_t bytes) const;
  // Whether `v` is the cheapest at some model size.
  [[nodiscard]] bool ever_cheapest(Variant v) const;
  // Without the row of `v`, unless it is the only row.
  void drop(Variant v);
  // What auto chooses from: this table without the aggregated row unless
  // that variant is predicted at least kBundleMargin faster than every
  // other one at some model size. A call that offers it sends its bundles
  // even when every block takes another variant (header-only, but they
  // cost messages and a dependency on the node pair's owners: ~20% of a
  // small call on the emulated cluster), so a narrow win is not worth it.
  // And at each model size where a forwarding row is not at least
  // kForwardMargin faster than linear, that row is lifted just above
  // linear's time, so that auto takes linear there.
  [[nodiscard]] CostTable offered() const;
  // Where the choice changes, e.g. "aggregated < 16K <= leader" (block
  // sizes in powers of two up to 64M).
  [[nodiscard]] std::string describe() const;
};

// A nonblocking or persistent call whose later steps move only inside MPI
// calls (NBRCOLL_PROGRESS=mpi, no progress thread): the variant of a block
// of `bytes`. Between start and completion the application may compute
// outside MPI, where a leader's second hop waits but the MPI's small
// messages do not: posted at the start, they go out eagerly and arrive
// meanwhile. Blocks from kForwardedNonblockingBlock up travel by
// rendezvous in the MPI too, which needs both ends inside MPI calls, so
// there linear waits for the computation as forwarding does and the model's
// comparison holds. Below it: linear by the model alone (the measured
// choice may forward there, where timed faster: Tuner's forward_from). Never aggregated: a bundle's owner
// waits for every block of its node, and a nonblocking call of the
// aggregated plan measured 0.48-1.63x the MPI's own at 1-64 KiB
// (bench/RESULTS.md, "Progress inside the MPI's calls").
// 64 KiB: Open MPI's TCP transport sends eagerly up to its
// btl_tcp_eager_limit, 64 KiB with the header, so no 64 KiB block is eager.
inline constexpr std::uint64_t kForwardedNonblockingBlock = std::uint64_t{64} * 1024;
Variant nonblocking_variant(const CostTable& table, std::uint64_t bytes);

}  // namespace nbrcoll::algos
