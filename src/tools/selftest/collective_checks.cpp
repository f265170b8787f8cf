// coll.<variant>: every neighborhood collective nbrcoll takes with device
// buffers (blocking allgather and allgatherv) under every variant, against a
// closed form and the MPI's own call on host copies (guard bytes, odd sizes;
// tests/device_checks, shared with mpi.device.*). ipc.pool, ipc.vmm,
// coll.managed: memory the legacy IPC calls cannot export (stream-ordered
// pools, VMM), and managed memory, on rank 0 beside device memory elsewhere.
#include <dlfcn.h>

#include <algorithm>
#include <memory>
#include <string>

#include "bench/nbrcoll_hooks.h"
#include "tests/device_checks/device_collective.h"
#include "tools/selftest/context.h"

namespace selftest {

namespace {

// How device fragments travel in this run, as nbrcoll chooses them.
std::string routes(const Context& c) {
  const std::string by_mpi = c.gpu_aware ? "MPI on device memory (GPU-aware)" : "MPI staged through pinned host memory";
  const std::string inside = c.ipc ? "IPC copy kernels" : by_mpi;
  if (c.world.nodes == 1) return "inside the node: " + inside;
  return "inside a node: " + inside + ", between nodes: " + by_mpi;
}

// Does rank 1 share its node with another rank (so that it receives some
// fragment by IPC, through a copy kernel)?
bool rank1_has_node_peer(const Context& c) {
  if (c.size < 2) return false;
  const auto& n = c.world.node_of;
  return std::count(n.begin(), n.end(), n[1]) > 1;
}

Outcome totals(const nbrcoll_check::DeviceCollectiveChecks& checks, const std::string& what) {
  const auto [total, failed] = checks.world_totals();
  if (failed > 0) {
    return fail(checks.first_failure().empty() ? "failed elsewhere"
                                               : checks.first_failure() + " (" + std::to_string(failed) + " of " +
                                                     std::to_string(total) + " checks failed)");
  }
  return pass(std::to_string(total) + " checks right: " + what);
}

Outcome variant(Context& c, const std::string& algo) {
  if (algo == "native" && !c.gpu_aware) {
    return skip(
        "native hands device buffers to the MPI, which is not GPU-aware here (the bench line times it on "
        "host copies)");
  }
  nbrbench::select_algo(algo);
  nbrcoll_check::DeviceCollectiveChecks checks(*c.g, c.plugin_handle);
  nbrcoll_check::SuiteOptions o;
  o.quick = c.options.quick;
  o.expect_ipc = checks.fake_hooks() && c.ipc;  // the fake counts IPC opens; real plugins do not
  o.mpi_reads_device = c.gpu_aware;
  // native: nbrcoll hands every call to the MPI's own collective, which
  // crashes on MPI_PROC_NULL under Open MPI 4.1.4 and copies nothing of ours.
  o.null_graphs = algo != "native";
  o.copy_failure = algo != "native" && c.ipc && rank1_has_node_peer(c);
  checks.run_all(o);
  std::string what = "allgather(v) on device buffers against the closed form and the MPI on host copies";
  if (checks.fake_hooks())
    what += std::string(", with the fake's rank 0 without IPC") + (o.copy_failure ? " and failed copy kernel" : "");
  if (!o.null_graphs) what += " (no MPI_PROC_NULL graph: the MPI's own crashes there)";
  what += "; " + routes(c);
  if (algo == "aggregated") what += "; a process with a GPU runtime runs aggregated as linear";
  return totals(checks, what);
}

// Rank 0's buffers from `kind`: what the plugin's export says of it, and the
// collectives with its fragments.
Outcome rank0_memory(Context& c, const MemoryKind& kind, bool expect_export_refused) {
  if (!kind.available()) return skip(kind.why_not);
  std::string exported;
  if (c.rank == 0 && expect_export_refused) {
    void* p = nullptr;
    if (kind.allocator.alloc(&p, std::size_t(1) << 20) != 0)
      return fail(kind.allocator.name + " failed: " + *kind.error);
    nbrcoll_ipc_handle h{};
    exported = c.g->ipc_get(p, &h) == 0 ? "ipc_get exports it (not as the README expects), "
                                        : std::string("ipc_get refuses it (") + c.g->last_error() +
                                              "), so its fragments inside a node go by MPI; ";
    kind.allocator.free(p);
  }
  nbrbench::select_algo("leader");
  nbrcoll_check::DeviceCollectiveChecks checks(*c.g, c.plugin_handle);
  checks.run_rank0_memory(kind.allocator);
  return totals(checks, exported + "allgather(v) with rank 0's buffers from " + kind.allocator.name +
                            " and device_malloc elsewhere, leader plan; " + routes(c));
}

// The fake backend's stand-in for pool memory: device_malloc while this
// process refuses IPC exports (its test hook).
MemoryKind fake_pool(const Context& c) {
  MemoryKind kind;
  using Refuse = void (*)(int);
  const auto refuse = c.plugin_handle == nullptr
                          ? nullptr
                          : reinterpret_cast<Refuse>(dlsym(c.plugin_handle, "nbrcoll_fake_device_refuse_ipc"));
  if (refuse == nullptr) {
    kind.why_not = "no pool memory on this backend";
    return kind;
  }
  auto live = std::make_shared<int>(0);
  const nbrcoll_device_backend* g = c.g;
  kind.allocator = {"device_malloc with exports refused (the fake's stand-in for pool memory)",
                    [g, refuse, live](void** p, std::size_t n) {
                      if ((*live)++ == 0) refuse(1);
                      return g->device_malloc(p, n);
                    },
                    [g, refuse, live](void* p) {
                      if (--*live == 0) refuse(0);
                      return g->device_free(p);
                    }};
  return kind;
}

}  // namespace

void check_unexportable(Context& c) {
  if (!c.runs("memory")) {
    for (const char* name : {"ipc.pool", "ipc.vmm", "coll.managed"}) c.report->check(name, skip("--skip memory"));
    return;
  }
  const MemoryKind pool = c.extras.pool.available() || c.g->name != std::string("fake") ? c.extras.pool : fake_pool(c);
  c.report->check("ipc.pool", rank0_memory(c, pool, true));
  c.report->check("ipc.vmm", rank0_memory(c, c.extras.vmm, true));
  c.report->check("coll.managed", rank0_memory(c, c.extras.managed, false));
}

void check_collectives(Context& c) {
  for (const std::string algo : {"native", "linear", "leader", "aggregated", "auto"}) {
    c.report->check("coll." + algo, c.runs("collectives") ? variant(c, algo) : skip("--skip collectives"));
  }
}

}  // namespace selftest
