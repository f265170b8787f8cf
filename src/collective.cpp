#include "collective.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <new>

#include "comm_state.h"
#include "config.h"
#include "device/backend_loader.h"
#include "device/device_call.h"
#include "device/runtime_probe.h"
#include "executor.h"
#include "log.h"
#include "watchdog.h"

namespace nbrcoll {

namespace {

int to_pmpi(const UserCall& c, bool variable) {
  if (variable) {
    return PMPI_Neighbor_allgatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcounts, c.displs, c.recvtype,
                                    c.comm);
  }
  return PMPI_Neighbor_allgather(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm);
}

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
bool acceptable(const UserCall& c, bool variable, const GraphInfo& info, CallArgs& args) {
  if (c.sendbuf == MPI_IN_PLACE || c.sendcount < 0 || c.sendtype == MPI_DATATYPE_NULL ||
      c.recvtype == MPI_DATATYPE_NULL) {
    return false;
  }
  if (variable && (c.recvcounts == nullptr || c.displs == nullptr)) return false;
  if (!variable && c.recvcount < 0) return false;
  TypeLayout probe;
  if (describe_type(c.sendtype, probe) != MPI_SUCCESS || describe_type(c.recvtype, probe) != MPI_SUCCESS) return false;
  const std::size_t slots = info.in.size();
  args.sendbuf = c.sendbuf;
  args.sendcount = c.sendcount;
  args.sendtype = c.sendtype;
  args.recvbuf = c.recvbuf;
  args.recvtype = c.recvtype;
  args.recvcounts.resize(slots);
  args.displs.resize(slots);
  bool receives = false;
  for (std::size_t i = 0; i < slots; ++i) {
    args.recvcounts[i] = variable ? c.recvcounts[i] : c.recvcount;
    args.displs[i] = variable ? c.displs[i] : static_cast<MPI_Aint>(i) * c.recvcount;
    if (args.recvcounts[i] < 0) return false;
    receives = receives || (args.recvcounts[i] > 0 && info.in[i] != MPI_PROC_NULL);
  }
  args.receives = receives;
  args.sends = c.sendcount > 0 && info.any_real_out;
  if (receives && bottom_without_addresses(c.recvbuf, c.recvtype)) return false;
  return !(args.sends && bottom_without_addresses(c.sendbuf, c.sendtype));
}

// ---- calls in a process with a GPU runtime ----------------------------------
//
// Device buffers need one agreement per call (which ranks hold device memory,
// whether IPC can export it); it happens only in processes that have a GPU
// runtime or a device backend loaded. Host-only processes never take it.

constexpr std::int64_t kTakeIt = 0;
constexpr std::int64_t kDeviceBuffers = 1;  // device buffers we cannot move
constexpr std::int64_t kCannotPrepare = 2;

struct BufferKinds {
  bool device = false;
  bool host = false;
  bool no_ipc = false;  // a device buffer here cannot be exported by IPC
  std::int64_t reason = kTakeIt;
};

bool device_process() {
  return loaded_runtime() != GpuRuntime::kNone || device_backend() != nullptr;
}

void warn_no_ipc_once(const nbrcoll_device_backend& backend) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    log(LogLevel::kInfo,
        "a device buffer cannot be exported by IPC (%s): calls with such buffers move every "
        "fragment by MPI",
        backend.last_error());
  }
}

BufferKinds classify_call(const UserCall& c, const CallArgs& args) {
  BufferKinds k;
  auto add = [&k](const void* p) {
    nbrcoll_pointer_info pi{};
    switch (classify_buffer(p, pi)) {
      case BufferKind::kHost:
        k.host = true;
        break;
      case BufferKind::kDevice:
        k.device = true;
        break;
      case BufferKind::kDeviceUnsupported:
        k.device = true;
        k.reason = kDeviceBuffers;
        break;
    }
  };
  if (args.sends) add(c.sendbuf);
  if (args.receives) add(c.recvbuf);
  if (k.device && k.host) k.reason = kDeviceBuffers;  // one rank mixing both: the MPI's business
  if (k.device && k.reason == kTakeIt) {
    // Device bytes are moved as they lie: contiguous types only (no pack/unpack on the device).
    TypeLayout send_type;
    TypeLayout recv_type;
    if (describe_type(c.sendtype, send_type) != MPI_SUCCESS || describe_type(c.recvtype, recv_type) != MPI_SUCCESS ||
        !send_type.in_place || !recv_type.in_place) {
      k.reason = kDeviceBuffers;
    }
  }
  if (k.device && k.reason == kTakeIt && config().device_ipc) {
    const nbrcoll_device_backend& backend = *device_backend();
    k.no_ipc = (args.sends && !can_export(backend, c.sendbuf)) || (args.receives && !can_export(backend, c.recvbuf));
    if (k.no_ipc) warn_no_ipc_once(backend);
  }
  return k;
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

// Tag of the IPC "done reading your memory" acks: above every plan tag.
// MPI_TAG_UB is fixed for the life of the process, so it is asked once.
int ipc_ack_tag() {
  static const int tag = [] {
    int* tag_ub = nullptr;
    int flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    return flag != 0 && tag_ub != nullptr ? *tag_ub : 32767;
  }();
  return tag;
}

// Device buffers on every rank that has data. Ranks without data may have no
// backend at all: their fragments are all empty, so they run as on the host.
// Ends with an agreement on success, so that a device failure on one rank
// (whose forwards may then carry wrong bytes) is an error on every rank.
int run_on_device(const GraphInfo& info, CallScratch& s, MPI_Comm comm, bool ipc) {
  int rc = MPI_SUCCESS;
  const nbrcoll_device_backend* backend = device_backend();
  if (backend == nullptr) {
    rc = run_plan(info.plan, s.choice, s.layout, comm);
    if (rc == MPI_SUCCESS) rc = s.layout.finish(s.args, info.plan.mixed, s.choice);
  } else {
    log_device_once(*backend, s.args);
    DeviceCall device(*backend);
    const DeviceRouting routing{&device, &info.process_of, ipc_ack_tag(), ipc, mpi_is_gpu_aware(*backend)};
    rc = run_plan(info.plan, s.choice, s.layout, comm, &routing);
    if (rc == MPI_SUCCESS) rc = s.layout.finish(s.args, info.plan.mixed, s.choice, &device);
  }
  int failed = rc != MPI_SUCCESS ? 1 : 0;
  const int agreed = PMPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
  if (rc == MPI_SUCCESS && (agreed != MPI_SUCCESS || failed != 0)) rc = agreed != MPI_SUCCESS ? agreed : MPI_ERR_OTHER;
  return rc;
}

void warn_fallback_once(const char* why) {
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) log(LogLevel::kWarn, "falling back to the MPI's own neighbor allgather: %s", why);
}

// The agreement and the run of a call in a process with a GPU runtime.
// Returns -1 when every rank hands the call to PMPI.
int device_process_call(const UserCall& c, const GraphInfo& info, CallScratch& s, MPI_Comm comm) {
  const BufferKinds kinds = classify_call(c, s.args);
  // {reason to hand the call to PMPI, device buffers somewhere, host buffers
  // somewhere, a device buffer somewhere that IPC cannot export}
  std::int64_t vote[4] = {kinds.reason, kinds.device ? 1 : 0, kinds.host ? 1 : 0, kinds.no_ipc ? 1 : 0};
  if (kinds.reason == kTakeIt) {
    try {
      if (s.layout.prepare(s.args, info.in) != MPI_SUCCESS) vote[0] = kCannotPrepare;
    } catch (const std::bad_alloc&) {
      vote[0] = kCannotPrepare;
    }
  }
  const int rc = PMPI_Allreduce(MPI_IN_PLACE, vote, 4, MPI_INT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS || vote[0] == kCannotPrepare) {
    warn_fallback_once(rc != MPI_SUCCESS ? "agreement failed" : "a rank could not prepare its buffers");
    return -1;
  }
  if (vote[0] == kDeviceBuffers || (vote[1] != 0 && vote[2] != 0)) {
    log(LogLevel::kInfo, "%s: this call goes to the MPI's own neighbor allgather",
        vote[0] == kDeviceBuffers ? "device buffers nbrcoll cannot move (no device backend, or a non-contiguous type)"
                                  : "device buffers on some ranks and host buffers on others");
    return -1;
  }
  if (vote[1] != 0) return run_on_device(info, s, comm, config().device_ipc && vote[3] == 0);
  const int run = run_plan(info.plan, s.choice, s.layout, comm);
  return run == MPI_SUCCESS ? s.layout.finish(s.args, info.plan.mixed, s.choice) : run;
}

// ---- calls in a host-only process: no agreement at all ---------------------

// A rank that cannot prepare its buffers (out of memory for a pack buffer, a
// packed block above MPI's int count) still runs the plan, hollow, so that
// its peers complete; it returns the error.
int host_call(const GraphInfo& info, CallScratch& s, MPI_Comm comm) {
  int prepared = MPI_SUCCESS;
  try {
    prepared = s.layout.prepare(s.args, info.in);
  } catch (const std::bad_alloc&) {
    s.layout.make_hollow();
    prepared = MPI_ERR_NO_MEM;
  }
  if (prepared != MPI_SUCCESS) log(LogLevel::kWarn, "cannot prepare this rank's buffers (MPI error %d)", prepared);
  int rc = run_plan(info.plan, s.choice, s.layout, comm);
  if (rc == MPI_SUCCESS) rc = s.layout.finish(s.args, info.plan.mixed, s.choice);
  return prepared != MPI_SUCCESS ? prepared : rc;
}

void trace_call(const CommState& state, bool variable, Algo algo, const CallScratch& s) {
  std::size_t leader = 0;
  for (const algos::Variant v : s.choice) leader += v == algos::Variant::kLeader ? 1 : 0;
  log(LogLevel::kTrace,
      "MPI_Neighbor_allgather%s #%llu: own block %llu B; %zu of %zu blocks by leader, the rest by linear (%s)",
      variable ? "v" : "", static_cast<unsigned long long>(state.calls),
      static_cast<unsigned long long>(s.layout.send_bytes()), leader, s.choice.size(),
      algo != Algo::kAuto      ? "NBRCOLL_ALGO"
      : state.info->nodes == 1 ? "auto, one node: linear"
                               : "auto: leader for blocks >= NBRCOLL_THRESHOLD");
}

}  // namespace

int neighbor_allgather(const UserCall& c, bool variable) {
  if (config().disable) return to_pmpi(c, variable);
  CommState* state = find_state(c.comm);
  if (state == nullptr) return to_pmpi(c, variable);
  const GraphInfo& info = *state->info;
  const Algo algo = effective_algo();
  if (algo == Algo::kNative) return to_pmpi(c, variable);
  CallScratch& s = state->scratch;
  if (!acceptable(c, variable, info, s.args)) return to_pmpi(c, variable);
  const MPI_Comm comm = private_comm(*state);
  if (comm == MPI_COMM_NULL) return to_pmpi(c, variable);
  ++state->calls;
  const WatchedCall watched(variable ? "MPI_Neighbor_allgatherv" : "MPI_Neighbor_allgather", state->calls, info);

  int rc = s.layout.measure(s.args, info.in);
  if (rc == MPI_SUCCESS) {
    // Each origin's block by linear or leader, decided from B(origin) alone:
    // every rank that touches that block decides the same without asking.
    // On a single node host buffers gain nothing from leaders (no network
    // bytes to save, only extra copies: bench/RESULTS.md), so auto keeps
    // them linear there; `nodes` is one number on every rank.
    const bool device = device_process();
    const std::uint64_t threshold =
        info.nodes == 1 && !device ? std::numeric_limits<std::uint64_t>::max() : config().threshold;
    choose_variants(info.plan, s.layout, algo == Algo::kAuto,
                    algo == Algo::kLinear ? algos::Variant::kLinear : algos::Variant::kLeader, threshold, s.choice);
    if (log_enabled(LogLevel::kTrace)) trace_call(*state, variable, algo, s);
    if (device) {
      rc = device_process_call(c, info, s, comm);
      if (rc == -1) return to_pmpi(c, variable);
    } else {
      rc = host_call(info, s, comm);
    }
  }
  if (rc != MPI_SUCCESS) {
    log(LogLevel::kInfo, "neighbor allgather failed with MPI error %d", rc);
    PMPI_Comm_call_errhandler(c.comm, rc);
  }
  return rc;
}

}  // namespace nbrcoll
