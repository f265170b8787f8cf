// MPI_Neighbor_allgather(v) with device buffers: a plain MPI program that
// allocates its buffers through a device backend plugin (the real CUDA or HIP
// one on a GPU machine, the fake one in CI), fills them from the host, and
// checks every result byte for byte against (1) a closed form and (2) the
// MPI's own PMPI_Neighbor_allgather(v) on host copies of the same data.
// Bytes around every receive block (gaps, guards) must stay untouched.
//
//   device_buffers --backend PLUGIN [--quick] [--expect-ipc] [--mpi-reads-device]
// --expect-ipc: the IPC cache must open each peer allocation once: calls
//   repeated on the same buffers open nothing new (fake backend counters).
// --mpi-reads-device: the MPI may be handed device memory (a GPU-aware MPI,
//   or the fake one unprotected), so the cases where nbrcoll lets the MPI
//   read device memory (a non-contiguous type: MPI_Pack) run too.
// Every run also checks that a call needs only its plan's ranks (an isolated
// rank enters its call only after the others finished theirs), host buffers
// on one rank beside device buffers elsewhere, and, on the fake backend, one
// rank whose memory IPC cannot export and an injected copy-kernel failure
// (the rank that saw it reports an error; a rank that reports success has
// exactly the right bytes).
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "tests/mpi/test_graphs.h"
#include "transport/device/backend_abi.h"
#include "transport/device/open_backend.h"

namespace {

int g_rank = 0;
int g_size = 1;
long g_checks = 0;
long g_failures = 0;
const nbrcoll_device_backend* g_dev = nullptr;
void (*g_counters)(long*) = nullptr;
void (*g_refuse_ipc)(int) = nullptr;   // fake backend only
void (*g_fail_copies)(int) = nullptr;  // fake backend only

void check(bool ok, const std::string& what) {
  ++g_checks;
  if (ok) return;
  ++g_failures;
  if (g_failures <= 10) std::fprintf(stderr, "[rank %d] FAIL: %s\n", g_rank, what.c_str());
}

// A device allocation holding `bytes`, filled from the host.
struct DeviceBuffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(const std::vector<unsigned char>& host) : bytes(host.size()) {
    if (g_dev->device_malloc(&p, bytes == 0 ? 1 : bytes) != 0) {
      std::fprintf(stderr, "[rank %d] device_malloc(%zu): %s\n", g_rank, bytes, g_dev->last_error());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (bytes > 0) g_dev->copy_to_device_sync(p, host.data(), bytes);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p != nullptr) g_dev->device_free(p);
  }
  [[nodiscard]] std::vector<unsigned char> read() const {
    std::vector<unsigned char> host(bytes);
    if (bytes > 0) g_dev->copy_to_host_sync(host.data(), p, bytes);
    return host;
  }
};

long ipc_opens() {
  long c[4] = {0, 0, 0, 0};
  if (g_counters != nullptr) g_counters(c);
  return c[2];
}

std::vector<unsigned char> send_bytes(int rank, std::size_t bytes, int call) {
  std::vector<unsigned char> b(bytes);
  for (std::size_t i = 0; i < bytes; ++i) {
    b[i] = static_cast<unsigned char>((rank * 131 + static_cast<int>(i % 253) * 7 + call * 29 + 3) & 0xff);
  }
  return b;
}

MPI_Comm create(const Graph& g) {
  const auto& in = g.in[static_cast<std::size_t>(g_rank)];
  const auto& out = g.out[static_cast<std::size_t>(g_rank)];
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(in.size()), in.data(), MPI_UNWEIGHTED,
                                 static_cast<int>(out.size()), out.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm);
  return comm;
}

struct Case {
  MPI_Datatype type;
  const char* type_name;
  int count;  // per block; allgatherv varies it per source
  bool variable;
  int call;  // changes every byte of the data
};

// Receive layout: per slot a count and a displacement (in elements), with
// gaps and reversed order for allgatherv; `elements` in all, plus a guard.
struct Layout {
  std::vector<int> counts;
  std::vector<int> displs;
  int elements = 0;
};

int count_of(const Case& c, int source) {
  if (!c.variable) return c.count;
  return source % 3 == 1 ? 0 : c.count + source % 5;
}

Layout layout_for(const Case& c, const std::vector<int>& in) {
  Layout l;
  l.counts.resize(in.size() + 1);
  l.displs.resize(in.size() + 1);
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::size_t i = c.variable ? in.size() - 1 - k : k;
    l.counts[i] = in[i] == MPI_PROC_NULL ? c.count : count_of(c, in[i]);
    l.displs[i] = l.elements;
    l.elements += l.counts[i] + (c.variable ? 3 : 0);
  }
  l.elements += 5;  // guard after the last block
  return l;
}

// One call on device buffers, checked against the closed form and PMPI.
void run_case(MPI_Comm comm, const Graph& g, const Case& c, const std::string& what) {
  const auto& in = g.in[static_cast<std::size_t>(g_rank)];
  int esize = 0;
  MPI_Type_size(c.type, &esize);
  const auto es = static_cast<std::size_t>(esize);
  const Layout lay = layout_for(c, in);
  const int mycount = count_of(c, g_rank);
  const std::vector<unsigned char> mine = send_bytes(g_rank, static_cast<std::size_t>(mycount) * es, c.call);
  const std::vector<unsigned char> fill(static_cast<std::size_t>(lay.elements) * es, 0xA5);

  // Closed form: every slot holds its source's bytes, everything else 0xA5.
  std::vector<unsigned char> expected = fill;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == MPI_PROC_NULL) continue;
    const std::vector<unsigned char> theirs =
        send_bytes(in[i], static_cast<std::size_t>(count_of(c, in[i])) * es, c.call);
    std::copy(theirs.begin(), theirs.end(), expected.begin() + static_cast<std::ptrdiff_t>(lay.displs[i]) * esize);
  }

  DeviceBuffer sendbuf(mine);
  DeviceBuffer recvbuf(fill);
  const int rc = c.variable ? MPI_Neighbor_allgatherv(sendbuf.p, mycount, c.type, recvbuf.p, lay.counts.data(),
                                                      lay.displs.data(), c.type, comm)
                            : MPI_Neighbor_allgather(sendbuf.p, mycount, c.type, recvbuf.p, c.count, c.type, comm);
  check(rc == MPI_SUCCESS, what + ": return code " + std::to_string(rc));
  const std::vector<unsigned char> got = recvbuf.read();
  const auto diff = std::mismatch(got.begin(), got.end(), expected.begin());
  check(diff.first == got.end(), what + ": differs from the closed form at byte " +
                                     std::to_string(diff.first - got.begin()) + " of " + std::to_string(got.size()));
  if (g.has_null) return;  // Open MPI 4.1's own neighbor collectives crash on MPI_PROC_NULL
  std::vector<unsigned char> theirs = fill;
  if (c.variable) {
    PMPI_Neighbor_allgatherv(mine.data(), mycount, c.type, theirs.data(), lay.counts.data(), lay.displs.data(), c.type,
                             comm);
  } else {
    PMPI_Neighbor_allgather(mine.data(), mycount, c.type, theirs.data(), c.count, c.type, comm);
  }
  check(theirs == got, what + ": differs from PMPI on host copies");
}

std::string name_of(const Graph& g, const Case& c) {
  return g.name + " " + c.type_name + " count=" + std::to_string(c.count) +
         (c.variable ? " allgatherv" : " allgather") + " call=" + std::to_string(c.call);
}

// The same buffers for several calls: each peer allocation is opened once.
// Then the receive buffer is freed and allocated again (often at the same
// address): a stale mapping would deliver the old bytes.
void check_cache(MPI_Comm comm, const Graph& g, bool expect_ipc, int& call) {
  const int count = 4099;
  const auto& in = g.in[static_cast<std::size_t>(g_rank)];
  const std::size_t bytes = static_cast<std::size_t>(count) * 4;
  std::vector<unsigned char> expected(in.size() * bytes, 0xA5);
  long opens_after_first = 0;
  std::unique_ptr<DeviceBuffer> kept_send;
  std::unique_ptr<DeviceBuffer> kept_recv;
  for (int round = 0; round < 4; ++round, ++call) {
    const std::vector<unsigned char> mine = send_bytes(g_rank, bytes, call);
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::vector<unsigned char> theirs = send_bytes(in[i], bytes, call);
      std::copy(theirs.begin(), theirs.end(), expected.begin() + static_cast<std::ptrdiff_t>(i * bytes));
    }
    // Rounds 0-1 reuse one pair of allocations; rounds 2-3 allocate afresh.
    if (round != 1) {
      kept_send.reset();  // freed first, so the new allocation may take its address
      kept_recv.reset();
      kept_send = std::make_unique<DeviceBuffer>(mine);
      kept_recv = std::make_unique<DeviceBuffer>(std::vector<unsigned char>(expected.size(), 0xA5));
    } else {
      g_dev->copy_to_device_sync(kept_send->p, mine.data(), bytes);
    }
    MPI_Neighbor_allgather(kept_send->p, count, MPI_INT, kept_recv->p, count, MPI_INT, comm);
    check(kept_recv->read() == expected, g.name + " cache round " + std::to_string(round) + ": wrong bytes");
    if (round == 0) opens_after_first = ipc_opens();
    if (round == 1 && expect_ipc) {
      check(ipc_opens() == opens_after_first,
            g.name + ": the second call on the same buffers opened IPC handles again (" +
                std::to_string(opens_after_first) + " -> " + std::to_string(ipc_opens()) + ")");
    }
  }
}

// A non-contiguous type on device memory (the MPI packs it), or
// (`rank0_on_host`) host buffers on rank 0 and device buffers elsewhere:
// each rank moves its own bytes its own way. Compared with PMPI on host copies.
void run_fallback_case(MPI_Comm comm, const Graph& g, bool rank0_on_host, int call) {
  MPI_Datatype strided;
  MPI_Type_vector(5, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  const MPI_Datatype type = rank0_on_host ? MPI_INT : strided;
  const int count = 3;
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  const auto block = static_cast<std::size_t>(count * extent);
  const std::size_t slots = g.in[static_cast<std::size_t>(g_rank)].size();
  const std::vector<unsigned char> mine = send_bytes(g_rank, block, call);
  const std::vector<unsigned char> fill(slots * block + 16, 0xA5);
  std::vector<unsigned char> got;
  if (rank0_on_host && g_rank == 0) {
    got = fill;
    MPI_Neighbor_allgather(mine.data(), count, type, got.data(), count, type, comm);
  } else {
    DeviceBuffer sendbuf(mine);
    DeviceBuffer recvbuf(fill);
    MPI_Neighbor_allgather(sendbuf.p, count, type, recvbuf.p, count, type, comm);
    got = recvbuf.read();
  }
  std::vector<unsigned char> theirs = fill;
  PMPI_Neighbor_allgather(mine.data(), count, type, theirs.data(), count, type, comm);
  check(got == theirs, g.name + (rank0_on_host ? ": host on rank 0, device elsewhere" : ": vector type on device") +
                           ": differs from PMPI on host copies");
  MPI_Type_free(&strided);
}

// Closed form of an allgather of `bytes` per block: each in-neighbour's
// block in slot order, then an 8-byte guard; 0xA5 where nothing belongs.
std::vector<unsigned char> gathered_blocks(const std::vector<int>& in, std::size_t bytes, int call) {
  std::vector<unsigned char> expected(in.size() * bytes + 8, 0xA5);
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::vector<unsigned char> theirs = send_bytes(in[i], bytes, call);
    std::copy(theirs.begin(), theirs.end(), expected.begin() + static_cast<std::ptrdiff_t>(i * bytes));
  }
  return expected;
}

// A call needs only the ranks its plan names: rank 0 has no neighbours and
// enters its call only after every other rank finished its own and said so.
// Any communicator-wide step inside a call would deadlock here. `on_device`:
// device buffers, else host buffers (in a process with a GPU runtime both
// take the same vote-free route choice).
void check_no_global_step(bool on_device, int call) {
  if (g_size < 2) return;
  Graph g = empty_graph(g_size, "ring without rank 0");
  for (int r = 1; r < g_size; ++r) add_edge(g, r, r + 1 < g_size ? r + 1 : 1);
  MPI_Comm comm = create(g);
  const std::size_t bytes = 4099;
  const auto& in = g.in[static_cast<std::size_t>(g_rank)];
  for (int round = 0; round < 2; ++round, ++call) {
    const std::vector<unsigned char> mine = send_bytes(g_rank, bytes, call);
    const std::vector<unsigned char> expected = gathered_blocks(in, bytes, call);
    const std::vector<unsigned char> fill(expected.size(), 0xA5);
    // Round 0: every rank together (a graph's first call completes nbrcoll's
    // private communicator). Round 1: rank 0 last.
    if (round == 1 && g_rank == 0) {
      for (int r = 1; r < g_size; ++r) MPI_Recv(nullptr, 0, MPI_BYTE, r, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    std::vector<unsigned char> got;
    int rc = MPI_SUCCESS;
    if (on_device) {
      DeviceBuffer sendbuf(mine);
      DeviceBuffer recvbuf(fill);
      rc = MPI_Neighbor_allgather(sendbuf.p, static_cast<int>(bytes), MPI_BYTE, recvbuf.p, static_cast<int>(bytes),
                                  MPI_BYTE, comm);
      got = recvbuf.read();
    } else {
      got = fill;
      rc = MPI_Neighbor_allgather(mine.data(), static_cast<int>(bytes), MPI_BYTE, got.data(), static_cast<int>(bytes),
                                  MPI_BYTE, comm);
    }
    if (round == 1 && g_rank != 0) MPI_Send(nullptr, 0, MPI_BYTE, 0, 77, MPI_COMM_WORLD);
    const std::string what =
        std::string("no global step, ") + (on_device ? "device" : "host") + " buffers, round " + std::to_string(round);
    check(rc == MPI_SUCCESS, what + ": return code " + std::to_string(rc));
    check(got == expected, what + ": wrong bytes");
  }
  MPI_Comm_free(&comm);
}

// Rank 0's new allocations cannot be exported by IPC, everybody else's can:
// rank 0 sends its fragments by MPI while its peers send theirs by IPC.
void check_one_rank_without_ipc(const Graph& g, MPI_Comm comm, int& call) {
  if (g_refuse_ipc == nullptr) return;
  if (g_rank == 0) g_refuse_ipc(1);
  for (const int count : {1, 4099}) {
    const Case c{MPI_INT, "int", count, count == 1, call++};
    run_case(comm, g, c, name_of(g, c) + " (rank 0 without IPC)");
  }
  if (g_rank == 0) g_refuse_ipc(0);
}

// Rank 1's copy kernels fail for one call (so the blocks it forwards, if
// its plan forwards any, are missing too). Rank 1 returns an error; every rank may
// return an error or success, never hang, and success means every byte is
// right (a rank that forwards a block it could not copy says so to the
// ranks it forwards to). Then the next call works everywhere.
void check_copy_failure(const Graph& g, MPI_Comm comm, int& call) {
  if (g_fail_copies == nullptr || g_size < 2) return;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const auto& in = g.in[static_cast<std::size_t>(g_rank)];
  const std::size_t bytes = 4099 * 4;
  for (int round = 0; round < 2; ++round, ++call) {
    const std::vector<unsigned char> mine = send_bytes(g_rank, bytes, call);
    const std::vector<unsigned char> expected = gathered_blocks(in, bytes, call);
    const std::vector<unsigned char> fill(expected.size(), 0xA5);
    DeviceBuffer sendbuf(mine);
    DeviceBuffer recvbuf(fill);
    if (round == 0 && g_rank == 1) g_fail_copies(1 << 20);
    const int rc = MPI_Neighbor_allgather(sendbuf.p, 4099, MPI_INT, recvbuf.p, 4099, MPI_INT, comm);
    if (g_rank == 1) g_fail_copies(0);
    const std::vector<unsigned char> got = recvbuf.read();
    const std::string what = g.name + " copy failure round " + std::to_string(round);
    if (round == 0 && g_rank == 1) check(rc != MPI_SUCCESS, what + ": the failed copy was not reported");
    if (round == 1 || rc == MPI_SUCCESS) {
      check(rc == MPI_SUCCESS, what + ": return code " + std::to_string(rc));
      check(got == expected, what + ": success with wrong bytes");
    } else {
      bool only_expected_or_untouched = true;
      for (std::size_t i = 0; i < got.size(); ++i) {
        only_expected_or_untouched = only_expected_or_untouched && (got[i] == expected[i] || got[i] == 0xA5);
      }
      check(only_expected_or_untouched, what + ": bytes written that belong nowhere");
    }
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const char* backend = std::getenv("NBRCOLL_DEVICE_BACKEND");
  bool quick = false;
  bool expect_ipc = false;
  bool mpi_reads_device = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend = argv[++i];
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    if (std::strcmp(argv[i], "--expect-ipc") == 0) expect_ipc = true;
    if (std::strcmp(argv[i], "--mpi-reads-device") == 0) mpi_reads_device = true;
  }
  const nbrcoll_gpu::OpenedBackend opened = nbrcoll_gpu::open_backend(backend != nullptr ? backend : "");
  g_dev = opened.table;
  int devices = 0;
  if (g_dev == nullptr || g_dev->device_count(&devices) != 0 || devices == 0) {
    if (g_rank == 0) std::printf("SKIP: no device backend or no device (%s)\n", opened.error.c_str());
    MPI_Finalize();
    return 77;
  }
  g_dev->set_device(g_rank % devices);  // several ranks share a device when there are few
  g_counters = reinterpret_cast<void (*)(long*)>(dlsym(opened.handle, "nbrcoll_fake_device_counters"));
  g_refuse_ipc = reinterpret_cast<void (*)(int)>(dlsym(opened.handle, "nbrcoll_fake_device_refuse_ipc"));
  g_fail_copies = reinterpret_cast<void (*)(int)>(dlsym(opened.handle, "nbrcoll_fake_device_fail_copies"));

  std::vector<Graph> graphs = {
      random_graph(g_size, "er0.4+dup+self", 0.4, 21, true, true, false),
      random_graph(g_size, "er1.0", 1.0, 22, false, false, false),
      random_graph(g_size, "er0.5+null", 0.5, 23, true, true, true),
      ring_graph(g_size),
      empty_graph(g_size, "empty"),
  };
  MPI_Datatype int3;
  MPI_Type_contiguous(3, MPI_INT, &int3);
  MPI_Type_commit(&int3);
  struct TypeName {
    MPI_Datatype type;
    const char* name;
  };
  const std::vector<TypeName> types = {{MPI_BYTE, "byte"}, {MPI_DOUBLE, "double"}, {int3, "contig3xint"}};
  const std::vector<int> counts = quick ? std::vector<int>{0, 1, 4099, 70001} : std::vector<int>{0, 1, 7, 4099, 70001};
  int call = 0;
  for (const Graph& g : graphs) {
    MPI_Comm comm = create(g);
    for (const TypeName& t : types) {
      for (int count : counts) {
        for (bool variable : {false, true}) {
          const Case c{t.type, t.name, count, variable, call++};
          run_case(comm, g, c, name_of(g, c));
        }
      }
    }
    // A few MiB per block: many chunks per fragment.
    const Case big{MPI_BYTE, "byte", 3 * (1 << 20) + 5, false, call++};
    if (g.name != "er1.0" || !quick) run_case(comm, g, big, name_of(g, big));
    if (!g.has_null) check_cache(comm, g, expect_ipc, call);
    if (!g.has_null) run_fallback_case(comm, g, true, call++);
    if (mpi_reads_device && !g.has_null) run_fallback_case(comm, g, false, call++);
    if (g.name == "er1.0") {
      check_one_rank_without_ipc(g, comm, call);
      check_copy_failure(g, comm, call);
    }
    MPI_Comm_free(&comm);
  }
  MPI_Type_free(&int3);
  check_no_global_step(true, call);
  check_no_global_step(false, call + 2);

  long totals[2] = {g_checks, g_failures};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("%ld passed, %ld failed\n", totals[0] - totals[1], totals[1]);
  MPI_Finalize();
  return totals[1] == 0 ? 0 : 1;
}
