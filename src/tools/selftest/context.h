// What every check of nbrcoll-selftest works with: this rank, the plugin,
// the runtime's extras, the options, the report. Each check is collective
// over MPI_COMM_WORLD (every rank calls it, in the same order).
#pragma once

#include <string>

#include "bench/world.h"
#include "tools/selftest/options.h"
#include "tools/selftest/report.h"
#include "tools/selftest/runtime_extras.h"
#include "transport/device/backend_abi.h"

namespace selftest {

struct Context {
  int rank = 0;
  int size = 1;
  const nbrcoll_device_backend* g = nullptr;
  void* plugin_handle = nullptr;
  std::string plugin_path;
  RuntimeExtras extras;
  Options options;
  int devices = 0;
  int device = 0;          // this rank's device ordinal
  std::string bus_id;      // its PCI bus id
  bool gpu_aware = false;  // nbrcoll hands device buffers to the MPI (else it stages them)
  bool ipc = true;         // NBRCOLL_DEVICE_IPC: fragments inside a node by IPC
  nbrbench::World world;   // nodes, real or emulated (NBRCOLL_RANKS_PER_NODE)
  Report* report = nullptr;
  [[nodiscard]] bool runs(const std::string& group) const { return options.skip.count(group) == 0; }
};

// The checks, in the order main() runs them.
void check_memory_kinds(Context& c);  // plugin.classify
void check_kernel(Context& c);        // kernel.exact
void check_bandwidth(Context& c);     // kernel.bandwidth
void check_ipc(Context& c);           // ipc.same_gpu, ipc.cross_gpu
void check_unexportable(Context& c);  // ipc.pool, ipc.vmm, coll.managed
void check_collectives(Context& c);   // coll.<variant>
void check_bench(Context& c);         // bench

}  // namespace selftest
