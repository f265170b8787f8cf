#include "collective.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <new>

#include "comm_state.h"
#include "config.h"
#include "device/backend_loader.h"
#include "device/device_call.h"
#include "executor.h"
#include "log.h"

namespace nbrcoll {

namespace {

int to_pmpi(const UserCall& c, bool variable) {
  if (variable) {
    return PMPI_Neighbor_allgatherv(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcounts, c.displs, c.recvtype,
                                    c.comm);
  }
  return PMPI_Neighbor_allgather(c.sendbuf, c.sendcount, c.sendtype, c.recvbuf, c.recvcount, c.recvtype, c.comm);
}

// Arguments we can take. Anything else goes to PMPI, which reports it exactly
// as it would without nbrcoll (error class and error handler included).
bool acceptable(const UserCall& c, bool variable, const GraphInfo& info, CallArgs& args) {
  if (c.sendbuf == MPI_IN_PLACE || c.sendcount < 0 || c.sendtype == MPI_DATATYPE_NULL ||
      c.recvtype == MPI_DATATYPE_NULL) {
    return false;
  }
  TypeLayout probe;
  if (describe_type(c.sendtype, probe) != MPI_SUCCESS || describe_type(c.recvtype, probe) != MPI_SUCCESS) return false;
  const std::size_t slots = info.in.size();
  if (variable && slots > 0 && (c.recvcounts == nullptr || c.displs == nullptr)) return false;
  if (!variable && c.recvcount < 0) return false;
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
  if (receives && c.recvbuf == nullptr) return false;
  args.receives = receives;
  args.sends = c.sendcount > 0 && info.any_real_out;
  return !(args.sends && c.sendbuf == nullptr);
}

std::uint64_t type_bytes(MPI_Datatype type, int count) {
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::uint64_t>(size) * static_cast<std::uint64_t>(std::max(count, 0));
}

// The algorithm for a call whose largest block is `block` bytes under `auto`.
// Open MPI 4.1's own neighbor collectives crash on MPI_PROC_NULL neighbours,
// so such graphs never go native automatically.
Algo choose_auto(std::uint64_t block, const GraphInfo& info) {
  if (block >= config().threshold) return Algo::kLeader;
  return info.any_proc_null ? Algo::kLinear : Algo::kNative;
}

// Reasons in the per-call agreement, combined with MAX (the strongest wins).
constexpr std::int64_t kTakeIt = 0;
constexpr std::int64_t kDeviceBuffers = 1;  // device buffers we cannot move
constexpr std::int64_t kCannotPrepare = 2;

bool gpu_aware_mpi() {
  const nbrcoll_device_backend* b = device_backend();
  return b != nullptr && mpi_is_gpu_aware(*b);
}

// What the buffers this rank uses in the call are.
struct BufferKinds {
  bool device = false;
  bool host = false;
  bool no_ipc = false;  // a device buffer here cannot be exported by IPC
  std::int64_t reason = kTakeIt;
};

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

int run_on_host(const RunnablePlan& plan, CallLayout& layout, const CallArgs& args, MPI_Comm comm) {
  int rc = run_plan(plan, layout, comm, config().chunk);
  if (rc == MPI_SUCCESS) rc = layout.finish(args, plan.plan.copies);
  return rc;
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
int run_on_device(const RunnablePlan& plan, CallLayout& layout, const CallArgs& args, const GraphInfo& info,
                  MPI_Comm comm, bool ipc) {
  int rc = MPI_SUCCESS;
  const nbrcoll_device_backend* backend = device_backend();
  if (backend == nullptr) {
    rc = run_on_host(plan, layout, args, comm);
  } else {
    log_device_once(*backend, args);
    DeviceCall device(*backend);
    const DeviceRouting routing{&device, &info.process_of, ipc_ack_tag(), ipc, mpi_is_gpu_aware(*backend)};
    if (log_enabled(LogLevel::kTrace)) {
      const auto n = [&](Route r) {
        const auto on = [&](bool on_node) { return routing.route(on_node) == r; };
        return std::count_if(plan.recv_on_node.begin(), plan.recv_on_node.end(), on) +
               std::count_if(plan.send_on_node.begin(), plan.send_on_node.end(), on);
      };
      log(LogLevel::kTrace, "device call on '%s': fragments ipc %ld, staged %ld, mpi %ld", backend->name,
          static_cast<long>(n(Route::kIpc)), static_cast<long>(n(Route::kMpiStaged)),
          static_cast<long>(n(Route::kMpi)));
    }
    rc = run_plan(plan, layout, comm, config().chunk, &routing);
    if (rc == MPI_SUCCESS) rc = layout.finish(args, plan.plan.copies, &device);
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

}  // namespace

int neighbor_allgather(const UserCall& c, bool variable) {
  if (config().disable) return to_pmpi(c, variable);
  CommState* state = find_state(c.comm);
  if (state == nullptr) return to_pmpi(c, variable);
  const GraphInfo& info = *state->info;
  Algo algo = effective_algo();
  if (algo == Algo::kNative) return to_pmpi(c, variable);
  CallArgs args;
  if (!acceptable(c, variable, info, args)) return to_pmpi(c, variable);

  // allgather: the block size is one value on both ends of every edge, so the
  // choice is identical without asking anyone. allgatherv decides below, from
  // the communicator's largest block.
  if (algo == Algo::kAuto && !variable) {
    const std::uint64_t block =
        info.any_real_out ? type_bytes(c.sendtype, c.sendcount) : type_bytes(c.recvtype, c.recvcount);
    algo = choose_auto(block, info);
    if (algo == Algo::kNative) return to_pmpi(c, variable);
  }

  // One agreement for all ranks: {largest block, reason to hand the call to
  // PMPI, device buffers somewhere, host buffers somewhere, a device buffer
  // somewhere that IPC cannot export (then no IPC route in this call)}. A rank must never
  // fall back alone: its peers would wait for it forever.
  CallLayout layout;
  const BufferKinds kinds = classify_call(c, args);
  std::int64_t vote[5] = {0, kinds.reason, kinds.device ? 1 : 0, kinds.host ? 1 : 0, kinds.no_ipc ? 1 : 0};
  if (kinds.reason == kTakeIt) {
    try {
      vote[1] = layout.prepare(args, info.in) != MPI_SUCCESS ? kCannotPrepare : kTakeIt;
      vote[0] = static_cast<std::int64_t>(layout.largest_block());
    } catch (const std::bad_alloc&) {
      vote[1] = kCannotPrepare;
    }
  }
  const MPI_Comm comm = private_comm(c.comm, *state);
  if (comm == MPI_COMM_NULL) return to_pmpi(c, variable);
  int rc = PMPI_Allreduce(MPI_IN_PLACE, vote, 5, MPI_INT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS || vote[1] == kCannotPrepare) {
    warn_fallback_once(rc != MPI_SUCCESS ? "agreement failed" : "a rank could not prepare its buffers");
    return to_pmpi(c, variable);
  }
  if (vote[1] == kDeviceBuffers || (vote[2] != 0 && vote[3] != 0)) {
    log(LogLevel::kInfo, "%s: this call goes to the MPI's own neighbor allgather",
        vote[1] == kDeviceBuffers ? "device buffers nbrcoll cannot move (no device backend, or a non-contiguous type)"
                                  : "device buffers on some ranks and host buffers on others");
    return to_pmpi(c, variable);
  }
  const bool on_device = vote[2] != 0;
  if (algo == Algo::kAuto) {
    algo = choose_auto(static_cast<std::uint64_t>(vote[0]), info);
    // A MPI that cannot read device memory must not get it.
    if (algo == Algo::kNative && on_device && !gpu_aware_mpi()) algo = Algo::kLinear;
    if (algo == Algo::kNative) return to_pmpi(c, variable);
  }
  const RunnablePlan& plan = algo == Algo::kLinear ? info.linear : info.leader;
  rc = on_device ? run_on_device(plan, layout, args, info, comm, config().device_ipc && vote[4] == 0)
                 : run_on_host(plan, layout, args, comm);
  if (rc != MPI_SUCCESS) {
    log(LogLevel::kInfo, "%s neighbor allgather failed with MPI error %d", algo_name(algo), rc);
    PMPI_Comm_call_errhandler(c.comm, rc);
  }
  return rc;
}

}  // namespace nbrcoll
