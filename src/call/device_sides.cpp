#include "call/device_sides.h"

#include <atomic>

#include "support/config.h"
#include "support/log.h"
#include "transport/device/backend_loader.h"
#include "transport/device/device_call.h"
#include "transport/device/runtime_probe.h"

namespace nbrcoll {

namespace {

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
// is not contiguous, so the bytes move through a host pack stage.
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

}  // namespace

DeviceRouting device_routing(const GraphInfo& info, const OwnedComm& own, const CallScratch& s) {
  const nbrcoll_device_backend* backend = device_backend();
  DeviceRouting routing;
  routing.process_of = &info.process_of;
  routing.ack_tag = own.ack_tag;
  routing.note_shift = info.note_shift();
  routing.ipc = config().device_ipc;
  routing.gpu_aware = backend != nullptr && mpi_is_gpu_aware(*backend);
  routing.send = side_memory(s.args.sendbuf, s.args.sends, s.layout.send_packed(), routing.send_exportable);
  routing.recv = side_memory(s.args.recvbuf, s.args.receives, s.layout.recv_packed(), routing.recv_exportable);
  if (backend != nullptr) log_device_once(*backend, s.args);
  return routing;
}

}  // namespace nbrcoll
