#include "bench/nbrcoll_hooks.h"

#include <map>
#include <optional>
#include <stdexcept>

#include "algos/plan.h"
#include "algos/plan_stats.h"
#include "state/agreed_settings.h"
#include "state/cost_tables.h"
#include "support/config.h"
#include "support/introspect.h"
#include "topo/node_topology.h"
#include "transport/device/device_call.h"

namespace nbrbench {

namespace {

nbrcoll::Algo to_algo(const std::string& name) {
  const auto a = nbrcoll::parse_algo(name == "native-again" ? "native" : name);
  if (!a) throw std::invalid_argument("unknown algorithm '" + name + "'");
  return *a;
}

// The plan variant an algorithm name stands for; none for auto and native.
std::optional<nbrcoll::algos::Variant> variant_of(const std::string& name) {
  const nbrcoll::Algo a = to_algo(name);
  if (a.kind != nbrcoll::Algo::Kind::kFixed) return std::nullopt;
  return a.variant;
}

Traffic empty_traffic() {
  Traffic t;
  t.have = true;
  t.messages.assign(nbrcoll::algos::kLinkClassCount, 0);
  t.bytes.assign(nbrcoll::algos::kLinkClassCount, 0);
  return t;
}

}  // namespace

std::string topology_source() {
  return nbrcoll::topo::load_topology(nbrcoll::config().topo).topology.source;
}

void select_algo(const std::string& name) {
  nbrcoll::set_algo_override(to_algo(name));
}

std::vector<std::string> link_class_names() {
  std::vector<std::string> names;
  for (int c = 0; c < nbrcoll::algos::kLinkClassCount; ++c)
    names.emplace_back(nbrcoll::algos::link_class_name(static_cast<nbrcoll::algos::LinkClass>(c)));
  return names;
}

std::size_t network_class_index() {
  return static_cast<std::size_t>(nbrcoll::algos::LinkClass::kNetwork);
}

Traffic plan_traffic(MPI_Comm graph_comm, const std::string& algo, const std::function<std::uint64_t(int)>& block_of) {
  const auto variant = variant_of(algo);
  const nbrcoll::algos::Plan* plan = variant ? nbrcoll::plan_for(graph_comm, *variant) : nullptr;
  if (plan == nullptr) return {};
  const auto stats = nbrcoll::algos::compute_stats(*plan, block_of);
  Traffic t = empty_traffic();
  for (std::size_t c = 0; c < t.bytes.size(); ++c) {
    t.messages[c] = stats.sent[c].messages;
    t.bytes[c] = stats.sent[c].bytes;
  }
  return t;
}

std::optional<Traffic> alltoall_plan_traffic(MPI_Comm graph_comm, const std::string& algo, const EdgeBytes& bytes_of,
                                             const BlockBytes& block_bytes) {
  const nbrcoll::algos::Plan* plan =
      nbrcoll::alltoall_plan_for(graph_comm, variant_of(algo).value_or(nbrcoll::algos::Variant::kLinear));
  if (plan == nullptr) return std::nullopt;
  Traffic t = empty_traffic();
  for (const auto& s : plan->sends) {
    const auto c = static_cast<std::size_t>(s.link);
    ++t.messages[c];
    t.bytes[c] += bytes_of(plan->rank, static_cast<std::size_t>(s.out_edge));
  }
  for (const auto& b : plan->bundle_sends) {
    std::uint64_t payload = 0;
    for (const auto& piece : b.pieces) payload += block_bytes(piece.origin, piece.dest, piece.k);
    const auto c = static_cast<std::size_t>(b.link);
    t.messages[c] += static_cast<std::uint64_t>(nbrcoll::algos::bundle_messages(b.pieces.size(), payload));
    t.bytes[c] += nbrcoll::algos::bundle_header_bytes(b.pieces.size()) + payload;
  }
  return t;
}

Traffic native_traffic(MPI_Comm graph_comm, int self, const std::vector<int>& out,
                       const std::function<std::uint64_t(std::size_t)>& edge_bytes, const std::vector<int>& node_of) {
  using nbrcoll::algos::LinkClass;
  std::map<int, LinkClass> peer_class;
  if (const auto* linear = nbrcoll::plan_for(graph_comm, nbrcoll::algos::Variant::kLinear))
    for (const auto& s : linear->sends) peer_class.emplace(s.peer, s.link);
  Traffic t = empty_traffic();
  for (std::size_t j = 0; j < out.size(); ++j) {
    const int dst = out[j];
    if (dst == self || dst < 0) continue;
    LinkClass c = node_of[static_cast<std::size_t>(dst)] != node_of[static_cast<std::size_t>(self)]
                      ? LinkClass::kNetwork
                      : LinkClass::kMultiHop;
    if (auto it = peer_class.find(dst); it != peer_class.end()) c = it->second;
    ++t.messages[static_cast<std::size_t>(c)];
    t.bytes[static_cast<std::size_t>(c)] += edge_bytes(j);
  }
  return t;
}

Traffic reduce_traffic(const Traffic& t, MPI_Comm comm) {
  int have = t.have ? 1 : 0, all = 0;
  MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm);
  if (all == 0) return {};
  Traffic sum = empty_traffic();
  MPI_Reduce(t.messages.data(), sum.messages.data(), static_cast<int>(t.messages.size()), MPI_UINT64_T, MPI_SUM, 0,
             comm);
  MPI_Reduce(t.bytes.data(), sum.bytes.data(), static_cast<int>(t.bytes.size()), MPI_UINT64_T, MPI_SUM, 0, comm);
  return sum;
}

namespace {

// The variant auto gives blocks of `block_bytes` on `graph_comm`, as
// call/decide.cpp chooses it.
nbrcoll::algos::Variant auto_variant(MPI_Comm graph_comm, const nbrcoll::CostView& costs, bool alltoall,
                                     std::uint64_t block_bytes, bool nonblocking) {
  using nbrcoll::ForwardingProgress;
  using nbrcoll::algos::Variant;
  const nbrcoll::Config& c = nbrcoll::config();
  if (c.threshold_set) return !alltoall && block_bytes >= c.threshold ? Variant::kLeader : Variant::kLinear;
  if (!nonblocking)
    return nbrcoll::tuned_variant(graph_comm, alltoall, block_bytes).value_or(costs.offered->cheapest(block_bytes));
  if (!nbrcoll::nonblocking_forwards_on(graph_comm, alltoall)) return Variant::kLinear;
  return nbrcoll::forwarding_progress_everywhere() == ForwardingProgress::kThread
             ? costs.offered->cheapest(block_bytes)
             : nbrcoll::algos::nonblocking_variant(*costs.offered, block_bytes);
}

}  // namespace

std::optional<double> predicted_us(MPI_Comm graph_comm, const std::string& algo, bool alltoall,
                                   std::uint64_t block_bytes, bool nonblocking) {
  using nbrcoll::algos::Variant;
  const nbrcoll::CostView costs = nbrcoll::costs_for(graph_comm, alltoall);
  if (costs.model == nullptr) return std::nullopt;
  Variant v = Variant::kLinear;
  if (algo == "leader" && !alltoall) v = Variant::kLeader;
  if (algo == "aggregated") v = Variant::kAggregated;
  if (algo == "auto") v = auto_variant(graph_comm, costs, alltoall, block_bytes, nonblocking);
  // The table leaves out the floor that every plan pays alike; a prediction
  // to set beside a measurement includes it.
  return nbrcoll::algos::reported_us(static_cast<double>(costs.model->at(v, block_bytes)) / 1000.0,
                                     nbrcoll::machine_model());
}

bool tuning_busy(MPI_Comm graph_comm) {
  return nbrcoll::tuning_busy(graph_comm);
}

std::string model_machine() {
  return nbrcoll::machine_model().name;
}

bool mpi_takes_device_memory(const nbrcoll_device_backend& backend) {
  return nbrcoll::mpi_is_gpu_aware(backend);
}

bool device_ipc_enabled() {
  return nbrcoll::config().device_ipc;
}

}  // namespace nbrbench
