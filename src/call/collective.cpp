#include "call/collective.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>

#include "state/comm_state.h"
#include "support/config.h"
#include "transport/device/backend_loader.h"
#include "transport/device/device_call.h"
#include "transport/device/runtime_probe.h"
#include "engine/executor.h"
#include "support/log.h"
#include "call/operation.h"
#include "call/persistent.h"
#include "call/pmpi_handoff.h"
#include "call/progress.h"
#include "support/watchdog.h"

namespace nbrcoll {

namespace {

const char* mpi_name(Kind kind, Mode mode) {
  static const char* const names[3][4] = {
      {"MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv"},
      {"MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv"},
      {"MPI_Neighbor_allgather_init", "MPI_Neighbor_allgatherv_init", "MPI_Neighbor_alltoall_init",
       "MPI_Neighbor_alltoallv_init"}};
  return names[static_cast<int>(mode)][static_cast<int>(kind)];
}

int to_pmpi(const UserCall& c) {
  return pmpi_blocking(c);
}

int to_pmpi(const UserCall& c, MPI_Request* r) {
  return pmpi_nonblocking(c, r);
}

#if MPI_VERSION >= 4
int to_pmpi(const UserCall& c, MPI_Info info, MPI_Request* r) {
  return pmpi_persistent(c, info, r);
}
#endif

// A null buffer is MPI_BOTTOM: valid when the datatype holds absolute
// addresses (its true lower bound is not 0), an error otherwise.
bool bottom_without_addresses(const void* buf, MPI_Datatype type) {
  if (buf != nullptr) return false;
  MPI_Aint true_lb = 0;
  MPI_Aint true_extent = 0;
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  return true_lb == 0;
}

// Arguments we can take. Anything else is an argument error that the MPI
// itself detects on this rank before it communicates: the call goes to PMPI,
// which reports it exactly as it would without nbrcoll (error class and error
// handler included). Fills `args` for the calls we take.
bool acceptable(const UserCall& c, const GraphInfo& info, CallArgs& args) {
  const bool variable = c.variable();
  const bool alltoall = c.alltoall();
  if (c.sendbuf == MPI_IN_PLACE || c.sendtype == MPI_DATATYPE_NULL || c.recvtype == MPI_DATATYPE_NULL) return false;
  if (variable && (c.recvcounts == nullptr || c.rdispls == nullptr)) return false;
  if (c.kind == Kind::kAlltoallv && (c.sendcounts == nullptr || c.sdispls == nullptr)) return false;
  if (!variable && c.recvcount < 0) return false;
  if (c.kind != Kind::kAlltoallv && c.sendcount < 0) return false;
  TypeLayout probe;
  if (describe_type(c.sendtype, probe) != MPI_SUCCESS || describe_type(c.recvtype, probe) != MPI_SUCCESS) return false;
  const std::size_t slots = info.in.size();
  args.sendbuf = c.sendbuf;
  args.sendcount = c.sendcount;
  args.sendtype = c.sendtype;
  args.recvbuf = c.recvbuf;
  args.recvtype = c.recvtype;
  args.alltoall = alltoall;
  args.recvcounts.resize(slots);
  args.displs.resize(slots);
  bool receives = false;
  for (std::size_t i = 0; i < slots; ++i) {
    args.recvcounts[i] = variable ? c.recvcounts[i] : c.recvcount;
    args.displs[i] = variable ? c.rdispls[i] : static_cast<MPI_Aint>(i) * c.recvcount;
    if (args.recvcounts[i] < 0) return false;
    receives = receives || (args.recvcounts[i] > 0 && info.in[i] != MPI_PROC_NULL);
  }
  bool sends = c.sendcount > 0 && info.any_real_out;
  if (alltoall) {
    const std::size_t edges = info.out.size();
    args.sendcounts.resize(edges);
    args.sdispls.resize(edges);
    sends = false;
    for (std::size_t j = 0; j < edges; ++j) {
      const bool v = c.kind == Kind::kAlltoallv;
      args.sendcounts[j] = v ? c.sendcounts[j] : c.sendcount;
      args.sdispls[j] = v ? c.sdispls[j] : static_cast<MPI_Aint>(j) * c.sendcount;
      if (args.sendcounts[j] < 0) return false;
      sends = sends || (args.sendcounts[j] > 0 && info.out[j] != MPI_PROC_NULL);
    }
  } else {
    args.sendcounts.clear();
    args.sdispls.clear();
  }
  args.receives = receives;
  args.sends = sends;
  if (receives && bottom_without_addresses(c.recvbuf, c.recvtype)) return false;
  return !(args.sends && bottom_without_addresses(c.sendbuf, c.sendtype));
}

// ---- calls in a process with a GPU runtime ----------------------------------
//
// Each rank looks at its own buffers only, and each fragment's sender picks
// its route (executor.h, Route): no rank asks another about buffers, and no
// call takes a collective. Host-only processes run without notes.

// Without a loaded GPU runtime only a backend named in NBRCOLL_DEVICE_BACKEND
// can be there (device_backend() opens none otherwise): a host-only process
// pays one loader query per call.
bool device_process() {
  if (loaded_runtime() != GpuRuntime::kNone) return true;
  return !config().device_backend.empty() && device_backend() != nullptr;
}

void warn_no_ipc_once(const nbrcoll_device_backend& backend) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    log(LogLevel::kInfo, "a device buffer cannot be exported by IPC (%s): its fragments inside a node go by MPI",
        backend.last_error());
  }
}

void info_foreign_once(const char* why) {
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    log(LogLevel::kInfo,
        "device buffers nbrcoll does not move itself (%s): the MPI's point-to-point calls get them as they are, "
        "as in its own neighbor collective",
        why);
  }
}

// Where one of this rank's buffers lies for this call. `packed`: the type
// is not contiguous, so the bytes move through a host pack stage (the MPI
// packs and unpacks the user's buffer, device memory or not).
Memory side_memory(const void* buf, bool used, bool packed, bool& exportable) {
  exportable = false;
  if (!used) return Memory::kHost;
  nbrcoll_pointer_info pi{};
  const BufferKind kind = classify_buffer(buf, pi);
  if (kind == BufferKind::kHost) return Memory::kHost;
  if (packed) {
    info_foreign_once("a non-contiguous datatype on device memory");
    return Memory::kHost;
  }
  if (kind == BufferKind::kDeviceUnsupported) {
    info_foreign_once("no device backend for them");
    return Memory::kForeign;
  }
  const nbrcoll_device_backend& backend = *device_backend();
  if (config().device_ipc) {
    exportable = can_export(backend, buf);
    if (!exportable) warn_no_ipc_once(backend);
  }
  return Memory::kDevice;
}

// One info line per process: which device holds the first device buffers seen.
void log_device_once(const nbrcoll_device_backend& backend, const CallArgs& args) {
  static std::atomic<bool> logged{false};
  if (!log_enabled(LogLevel::kInfo) || logged.exchange(true)) return;
  nbrcoll_pointer_info info{};
  const void* p = args.recvbuf != nullptr ? args.recvbuf : args.sendbuf;
  if (p == nullptr || backend.pointer_info(p, &info) != 0 || info.is_device == 0) return;
  char bus[64] = "?";
  backend.pci_bus_id(info.device, bus, sizeof bus);
  log(LogLevel::kInfo, "device buffers on %s device %d (PCI %s); MPI GPU-aware: %s; IPC inside a node: %s",
      backend.name, info.device, bus, mpi_is_gpu_aware(backend) ? "yes" : "no", config().device_ipc ? "on" : "off");
}

// The device side of a blocking allgather(v) in a process with a GPU
// runtime, from this rank's own buffers. `device` holds the call's device
// resources where a backend is loaded.
void route_device_call(const GraphInfo& info, const OwnedComm& own, const CallScratch& s, DeviceRouting& routing,
                       std::optional<DeviceCall>& device) {
  const nbrcoll_device_backend* backend = device_backend();
  routing.process_of = &info.process_of;
  routing.ack_tag = own.ack_tag;
  routing.note_shift = info.note_shift();
  routing.ipc = config().device_ipc;
  routing.gpu_aware = backend != nullptr && mpi_is_gpu_aware(*backend);
  routing.send = side_memory(s.args.sendbuf, s.args.sends, s.layout.send_packed(), routing.send_exportable);
  routing.recv = side_memory(s.args.recvbuf, s.args.receives, s.layout.recv_packed(), routing.recv_exportable);
  if (backend != nullptr) {
    log_device_once(*backend, s.args);
    routing.device = &device.emplace(*backend);
  }
}

// ---- calls in a host-only process: no agreement at all ---------------------

// Every entry point once, at NBRCOLL_DEBUG=info: proof that nbrcoll took it.
void log_taken_once(Kind kind, Mode mode) {
  static std::atomic<unsigned> seen{0};
  const unsigned bit = 1U << (static_cast<unsigned>(kind) + 4U * static_cast<unsigned>(mode));
  if (!log_enabled(LogLevel::kInfo) || (seen.fetch_or(bit) & bit) != 0) return;
  log(LogLevel::kInfo, "nbrcoll takes %s", mpi_name(kind, mode));
}

void trace_call(const CommState& state, const char* name, const char* why, const CallScratch& s) {
  std::size_t by[algos::kVariantCount] = {};
  for (const algos::Variant v : s.choice.variant) ++by[static_cast<int>(v)];
  log(LogLevel::kTrace,
      "%s #%llu: own block %llu B; of %zu blocks %zu by linear, %zu by leader, %zu by aggregated; bundles %s (%s)",
      name, static_cast<unsigned long long>(state.sequence->calls),
      static_cast<unsigned long long>(s.layout.send_bytes()), s.choice.variant.size(), by[0], by[1], by[2],
      s.choice.bundles ? "on" : "off", why);
}

// What a call needs before its plan runs, common to every kind and mode.
struct Setup {
  CommState* state = nullptr;
  const RunnablePlan* plan = nullptr;  // the state's allgather or alltoall plan
  MPI_Comm comm = MPI_COMM_NULL;       // the handle's channel's communicator
  bool device = false;                 // a process with a GPU runtime
};

// nullopt-like: false when the call goes to PMPI as it is.
// `state`: find_state(c.comm), looked up once per call (an attribute lookup
// takes a lock in Open MPI).
bool take(const UserCall& c, CommState* state, CallArgs& args, Setup& out) {
  if (config().disable) return false;
  if (state == nullptr || effective_algo() == Algo::kNative) return false;
  if (!acceptable(c, *state->info, args)) return false;
  out.comm = channel_comm(*state);
  out.state = state;
  out.plan = c.alltoall() ? &state->info->alltoall : &state->info->plan;
  out.device = device_process();
  return out.comm != MPI_COMM_NULL;
}

// The variant of every block of a call, identically on every rank: each
// block's variant comes from its own size, which both of its ends know, so
// nobody asks anybody. Under auto, blocking calls of a graph spanning nodes
// take the cost model's cheapest variant (cost_tables.h: one table, the
// same on every rank), or, with NBRCOLL_THRESHOLD set and for device
// buffers, linear below the threshold and leader from it. Whether a call's
// bundles travel depends only on the setting, the mode and the table, never
// on sizes. On a single node host buffers gain nothing from leaders or
// owners (no network bytes or messages to save, only extra copies:
// bench/RESULTS.md), so auto keeps them linear there. Nonblocking and
// persistent calls under auto stay linear: a leader or an owner forwards
// only inside an MPI call nbrcoll sees, and a rank blocked elsewhere in the
// MPI would stall its peers. Alltoall has no leader plan. Processes with a
// GPU runtime never take the aggregated plan (its bundles are packed on the
// host).
const char* choose(const UserCall& c, const Setup& setup, Mode mode, const RunnablePlan& plan, CallScratch& s) {
  using algos::Variant;
  const GraphInfo& info = *setup.state->info;
  const Algo algo = effective_algo();
  CallChoice& choice = s.choice;
  const auto all = [&](Variant v) {
    choose_variants(
        plan, s.layout, [v](std::uint64_t) { return v; }, choice.variant);
  };
  choice.bundles = false;
  if (algo == Algo::kLinear || (algo == Algo::kAuto && mode != Mode::kBlocking)) {
    all(Variant::kLinear);
    return algo == Algo::kLinear ? "NBRCOLL_ALGO" : "auto, nonblocking or persistent: linear";
  }
  if (algo == Algo::kLeader) {
    all(c.alltoall() ? Variant::kLinear : Variant::kLeader);
    return c.alltoall() ? "NBRCOLL_ALGO=leader, alltoall has no leader plan: linear" : "NBRCOLL_ALGO";
  }
  if (algo == Algo::kAggregated) {
    if (setup.device) {
      all(Variant::kLinear);
      return "NBRCOLL_ALGO=aggregated in a process with a GPU runtime: linear";
    }
    choice.bundles = true;
    all(Variant::kAggregated);
    return "NBRCOLL_ALGO";
  }
  if (info.nodes == 1 && !setup.device) {
    all(Variant::kLinear);
    return "auto, one node: linear";
  }
  if (config().threshold_set || setup.device) {
    if (c.alltoall()) {
      all(Variant::kLinear);
      return "auto by threshold, alltoall: linear";
    }
    const std::uint64_t threshold = config().threshold;
    choose_variants(
        plan, s.layout, [threshold](std::uint64_t b) { return b >= threshold ? Variant::kLeader : Variant::kLinear; },
        choice.variant);
    return setup.device ? "auto, device process: leader for blocks >= NBRCOLL_THRESHOLD"
                        : "auto: leader for blocks >= NBRCOLL_THRESHOLD";
  }
  const algos::CostTable& table = c.alltoall() ? info.alltoall_costs : info.gather_costs;
  choice.bundles =
      std::find(table.variants.begin(), table.variants.end(), Variant::kAggregated) != table.variants.end();
  choose_variants(
      plan, s.layout, [&table](std::uint64_t b) { return table.cheapest(b); }, choice.variant);
  return "auto: the cost model's cheapest per block";
}

// Block sizes and the variant of every block of a call nbrcoll takes (the
// per-call work of all three modes; persistent calls do it once, at init).
int size_and_choose(const UserCall& c, const Setup& setup, Mode mode, CallScratch& s) {
  log_taken_once(c.kind, mode);
  const int rc = s.layout.measure(s.args, setup.state->info->in);
  if (rc != MPI_SUCCESS) return rc;
  const char* why = choose(c, setup, mode, *setup.plan, s);
  if (log_enabled(LogLevel::kTrace)) trace_call(*setup.state, mpi_name(c.kind, mode), why, s);
  return MPI_SUCCESS;
}

void report_error(const UserCall& c, Mode mode, int rc) {
  log(LogLevel::kInfo, "%s failed with MPI error %d", mpi_name(c.kind, mode), rc);
  PMPI_Comm_call_errhandler(c.comm, rc);
}

}  // namespace

int neighbor_collective(const UserCall& c) {
  Setup setup;
  CommState* state = find_state(c.comm);
  if (state == nullptr) return to_pmpi(c);
  // Watched from its start: on private communicators a duplicate's first
  // call completes its idup (take), and a late rank holds the others there.
  const WatchedCall watched(mpi_name(c.kind, Mode::kBlocking), state->sequence->calls + 1, *state->info);
  if (!take(c, state, state->scratch.args, setup)) return to_pmpi(c);
  // Processes with a GPU runtime: allgather(v) only (alltoall and the nonblocking forms go to the MPI).
  if (setup.device && c.alltoall()) return to_pmpi(c);
  const GraphInfo& info = *state->info;
  CallScratch& s = state->scratch;
  const int tag_offset = begin_call(*state->sequence, info);
  int rc = size_and_choose(c, setup, Mode::kBlocking, s);
  if (rc == MPI_SUCCESS) {
    Operation op(state->info, *setup.plan, state->own, tag_offset, s);
    op.prepare();
    DeviceRouting routing;
    std::optional<DeviceCall> device;
    if (setup.device) route_device_call(info, *state->own, s, routing, device);
    op.start(setup.device ? &routing : nullptr);
    drive_to_end(op);
    rc = op.error();
  }
  if (rc != MPI_SUCCESS) report_error(c, Mode::kBlocking, rc);
  return rc;
}

int ineighbor_collective(const UserCall& c, MPI_Request* request) {
  Setup setup;
  auto owned = std::make_unique<CallScratch>();
  if (request == nullptr || !take(c, find_state(c.comm), owned->args, setup) || setup.device)
    return to_pmpi(c, request);
  CommState& state = *setup.state;
  const int tag_offset = begin_call(*state.sequence, *state.info);
  auto op = std::make_shared<Operation>(state.info, *setup.plan, state.own, tag_offset, std::move(owned));
  // Type queries fail the same way on every rank of a correct program.
  int rc = size_and_choose(c, setup, Mode::kNonblocking, op->scratch());
  if (rc == MPI_SUCCESS) {
    op->prepare();
    op->start();
    remember_in_flight(*state.sequence, *state.info, tag_offset, op);
    rc = track(op, request);
  }
  if (rc != MPI_SUCCESS) report_error(c, Mode::kNonblocking, rc);
  return rc;
}

#if MPI_VERSION >= 4
// Everything but the packing of the send data is done here, once: the
// arguments, block sizes and variants hold for every start.
int neighbor_collective_init(const UserCall& c, MPI_Info mpi_info, MPI_Request* request) {
  Setup setup;
  auto call = std::make_shared<PersistentCall>();
  if (request == nullptr || !take(c, find_state(c.comm), call->scratch.args, setup) || setup.device)
    return to_pmpi(c, mpi_info, request);
  const CommState& state = *setup.state;
  call->info = state.info;
  call->plan = setup.plan;
  call->comm = state.own;
  call->sequence = state.sequence;
  int rc = size_and_choose(c, setup, Mode::kPersistent, call->scratch);
  if (rc == MPI_SUCCESS) rc = register_persistent(std::move(call), request);
  if (rc != MPI_SUCCESS) report_error(c, Mode::kPersistent, rc);
  return rc;
}
#endif

}  // namespace nbrcoll
