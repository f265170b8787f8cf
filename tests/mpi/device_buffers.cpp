// MPI_Neighbor_allgather(v) with device buffers: a plain MPI program that
// allocates its buffers through a device backend plugin (the real CUDA or HIP
// one on a GPU machine, the fake one in CI), fills them from the host, and
// checks every result byte for byte against (1) a closed form and (2) the
// MPI's own PMPI_Neighbor_allgather(v) on host copies of the same data
// (tests/device_checks/device_collective.h, shared with nbrcoll-selftest).
//
//   device_buffers --backend PLUGIN [--quick] [--expect-ipc] [--mpi-reads-device] [--require-device]
// --expect-ipc: the IPC cache must open each peer allocation once: calls
//   repeated on the same buffers open nothing new (fake backend counters).
// --mpi-reads-device: the MPI may be handed device memory (a GPU-aware MPI,
//   or the fake one unprotected), so the cases where nbrcoll lets the MPI
//   read device memory (a non-contiguous type: MPI_Pack) run too.
// --require-device: a plugin that does not load or has no device fails
//   (exit 1) instead of skipping (77): the fake device needs no hardware.
// Every run also checks that a call needs only its plan's ranks (an isolated
// rank enters its call only after the others finished theirs), host buffers
// on one rank beside device buffers elsewhere, and, on the fake backend, one
// rank whose memory IPC cannot export and an injected copy-kernel failure
// (the rank that saw it reports an error; a rank that reports success has
// exactly the right bytes).
#include <mpi.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/device_checks/device_collective.h"
#include "transport/device/open_backend.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* backend = std::getenv("NBRCOLL_DEVICE_BACKEND");
  nbrcoll_check::SuiteOptions options;
  bool require_device = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend = argv[++i];
    if (std::strcmp(argv[i], "--quick") == 0) options.quick = true;
    if (std::strcmp(argv[i], "--expect-ipc") == 0) options.expect_ipc = true;
    if (std::strcmp(argv[i], "--mpi-reads-device") == 0) options.mpi_reads_device = true;
    if (std::strcmp(argv[i], "--require-device") == 0) require_device = true;
  }
  const std::string path = backend != nullptr ? backend : "";
  const nbrcoll_gpu::OpenedBackend opened = nbrcoll_gpu::open_backend(path);
  int devices = 0;
  const int count_rc = opened.table != nullptr ? opened.table->device_count(&devices) : -1;
  if (opened.table == nullptr || count_rc != 0 || devices == 0) {
    // Skipped (77) only for what the machine lacks: a plugin that is there
    // but whose runtime cannot load (no driver), or no device. No plugin
    // named, a plugin file that is not there, one without a valid table, or
    // with --require-device (the fake device, which needs no hardware) any
    // of these, is breakage.
    struct stat st {};
    const bool present = !path.empty() && stat(path.c_str(), &st) == 0;
    const bool lacks = present && !require_device && (!opened.loaded || opened.table != nullptr);
    const std::string why = opened.table == nullptr ? opened.error
                            : count_rc != 0         ? "device_count failed: " + std::string(opened.table->last_error())
                                                    : "device_count is 0";
    if (rank == 0) std::printf("%s: the device backend %s: %s\n", lacks ? "SKIP" : "FAIL", path.c_str(), why.c_str());
    MPI_Finalize();
    return lacks ? 77 : 1;
  }
  opened.table->set_device(rank % devices);  // several ranks share a device when there are few
  nbrcoll_check::DeviceCollectiveChecks checks(*opened.table, opened.handle);
  checks.run_all(options);
  const auto [total, failed] = checks.world_totals();
  if (rank == 0) std::printf("%ld passed, %ld failed\n", total - failed, failed);
  if (rank == 0 && total == 0) std::printf("FAIL: no check ran\n");
  MPI_Finalize();
  return failed == 0 && total > 0 ? 0 : 1;
}
