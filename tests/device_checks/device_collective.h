// MPI_Neighbor_allgather(v) on device buffers, every result checked byte for
// byte against (1) a closed form and (2) the MPI's own
// PMPI_Neighbor_allgather(v) on host copies of the same data; the bytes
// around every receive block (gaps, guards) must stay untouched. Buffers come
// from a device backend plugin (the fake one in CI, the CUDA or HIP one on a
// GPU). One piece of code for the MPI test tests/mpi/device_buffers.cpp and
// nbrcoll-selftest. Every function is collective over MPI_COMM_WORLD.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <functional>
#include <string>

#include "transport/device/backend_abi.h"

struct Graph;  // tests/mpi/test_graphs.h

namespace nbrcoll_check {

// Where a rank's buffers come from (device_malloc, or a runtime's pool,
// VMM or managed memory); alloc and free return 0 on success.
struct Allocator {
  std::string name;
  std::function<int(void** p, std::size_t bytes)> alloc;
  std::function<int(void* p)> free;
};

struct SuiteOptions {
  bool quick = false;
  // The IPC cache must open each peer allocation once: calls repeated on the
  // same buffers open nothing new (needs the fake backend's counters).
  bool expect_ipc = false;
  // The MPI may be handed device memory (a GPU-aware MPI, or the fake one
  // unprotected), so the cases where nbrcoll lets the MPI read device memory
  // (a non-contiguous type: MPI_Pack) run too.
  bool mpi_reads_device = false;
  // Graphs with MPI_PROC_NULL: off where the calls reach the MPI's own
  // collective (NBRCOLL_ALGO=native), which crashes there under Open MPI 4.1.4.
  bool null_graphs = true;
  // The fake's injected copy-kernel failure on rank 1: only where rank 1
  // receives some fragment by a copy kernel (IPC from a rank of its node).
  bool copy_failure = true;
};

class DeviceCollectiveChecks {
 public:
  // `plugin_handle`: the plugin's dlopen handle, where the fake backend's
  // test hooks are looked up (real plugins have none).
  DeviceCollectiveChecks(const nbrcoll_device_backend& dev, void* plugin_handle);

  // Random graphs with duplicate and self edges, dense, MPI_PROC_NULL, ring,
  // empty; MPI_BYTE, MPI_DOUBLE and a contiguous derived type; counts 0 to
  // 70001 and 3 MiB blocks; allgather and allgatherv with gaps; the IPC
  // cache over repeated calls and over buffers freed and allocated again;
  // host buffers on rank 0 beside device buffers elsewhere; a call that
  // needs only its plan's ranks (an isolated rank enters last); on the fake
  // backend also one rank whose memory IPC cannot export and an injected
  // copy-kernel failure.
  void run_all(const SuiteOptions& o);

  // Rank 0's buffers from `rank0` (pool, VMM or managed memory), everybody
  // else's from device_malloc: allgather and allgatherv, odd counts, on a
  // dense graph and a ring.
  void run_rank0_memory(const Allocator& rank0);

  [[nodiscard]] long checks() const { return checks_; }
  [[nodiscard]] long failures() const { return failures_; }
  [[nodiscard]] const std::string& first_failure() const { return first_failure_; }
  // {checks, failures} summed over every rank.
  [[nodiscard]] std::pair<long, long> world_totals() const;
  [[nodiscard]] bool fake_hooks() const { return refuse_ipc_ != nullptr; }

 private:
  struct Case;
  class Buffer;

  void check(bool ok, const std::string& what);
  [[nodiscard]] long ipc_opens() const;
  void run_case(MPI_Comm comm, const ::Graph& g, const Case& c, const std::string& what, const Allocator& mem);
  void check_cache(MPI_Comm comm, const ::Graph& g, bool expect_ipc, int& call);
  void run_fallback_case(MPI_Comm comm, const ::Graph& g, bool rank0_on_host, int call);
  void check_no_global_step(bool on_device, int call);
  void check_one_rank_without_ipc(const ::Graph& g, MPI_Comm comm, int& call);
  void check_copy_failure(const ::Graph& g, MPI_Comm comm, int& call);

  const nbrcoll_device_backend& dev_;
  Allocator device_;  // device_malloc / device_free
  int rank_ = 0;
  int size_ = 1;
  long checks_ = 0;
  long failures_ = 0;
  std::string first_failure_;
  void (*counters_)(long*) = nullptr;
  void (*refuse_ipc_)(int) = nullptr;
  void (*fail_copies_)(int) = nullptr;
};

}  // namespace nbrcoll_check
