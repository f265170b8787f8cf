#include "tests/device_checks/device_collective.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "tests/mpi/test_graphs.h"

namespace nbrcoll_check {

namespace {

// Every buffer has this many guard bytes before it (Buffer, HostArea) and
// every receive area's fill leaves some after its last block: a write on
// either side of a receive area shows.
constexpr std::size_t kFrontGuard = 64;
constexpr unsigned char kGuard = 0xA5;

// A host receive area: `fill` after kFrontGuard guard bytes.
struct HostArea {
  std::vector<unsigned char> bytes;
  explicit HostArea(const std::vector<unsigned char>& fill) : bytes(kFrontGuard, kGuard) {
    bytes.insert(bytes.end(), fill.begin(), fill.end());
  }
  unsigned char* data() { return bytes.data() + kFrontGuard; }
  [[nodiscard]] bool front_intact() const {
    return std::all_of(bytes.begin(), bytes.begin() + kFrontGuard, [](unsigned char b) { return b == kGuard; });
  }
  [[nodiscard]] std::vector<unsigned char> read() const { return {bytes.begin() + kFrontGuard, bytes.end()}; }
};

std::vector<unsigned char> send_bytes(int rank, std::size_t bytes, int call) {
  std::vector<unsigned char> b(bytes);
  for (std::size_t i = 0; i < bytes; ++i) {
    b[i] = static_cast<unsigned char>((rank * 131 + static_cast<int>(i % 253) * 7 + call * 29 + 3) & 0xff);
  }
  return b;
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

}  // namespace

struct DeviceCollectiveChecks::Case {
  MPI_Datatype type;
  const char* type_name;
  int count;  // per block; allgatherv varies it per source
  bool variable;
  int call;  // changes every byte of the data
};

// An allocation from `mem` holding `bytes`, filled from the host, after
// kFrontGuard guard bytes (data() points past them).
class DeviceCollectiveChecks::Buffer {
 public:
  Buffer(const nbrcoll_device_backend& dev, const Allocator& mem, const std::vector<unsigned char>& host)
      : dev_(dev), mem_(mem), bytes_(host.size()) {
    if (mem_.alloc(&p_, kFrontGuard + bytes_) != 0) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      std::fprintf(stderr, "[rank %d] %s(%zu): %s\n", rank, mem_.name.c_str(), bytes_, dev_.last_error());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const std::vector<unsigned char> guard(kFrontGuard, kGuard);
    dev_.copy_to_device_sync(p_, guard.data(), kFrontGuard);
    write(host);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (p_ != nullptr) mem_.free(p_);
  }
  [[nodiscard]] void* data() const { return static_cast<unsigned char*>(p_) + kFrontGuard; }
  void write(const std::vector<unsigned char>& host) const {
    if (!host.empty()) dev_.copy_to_device_sync(data(), host.data(), host.size());
  }
  [[nodiscard]] std::vector<unsigned char> read() const {
    std::vector<unsigned char> host(bytes_);
    if (bytes_ > 0) dev_.copy_to_host_sync(host.data(), data(), bytes_);
    return host;
  }
  [[nodiscard]] bool front_intact() const {
    std::vector<unsigned char> guard(kFrontGuard);
    dev_.copy_to_host_sync(guard.data(), p_, kFrontGuard);
    return std::all_of(guard.begin(), guard.end(), [](unsigned char b) { return b == kGuard; });
  }

 private:
  const nbrcoll_device_backend& dev_;
  const Allocator& mem_;
  void* p_ = nullptr;
  std::size_t bytes_;
};

DeviceCollectiveChecks::DeviceCollectiveChecks(const nbrcoll_device_backend& dev, void* plugin_handle) : dev_(dev) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const nbrcoll_device_backend* d = &dev_;
  device_ = {"device_malloc", [d](void** p, std::size_t n) { return d->device_malloc(p, n); },
             [d](void* p) { return d->device_free(p); }};
  if (plugin_handle != nullptr) {
    counters_ = reinterpret_cast<void (*)(long*)>(dlsym(plugin_handle, "nbrcoll_fake_device_counters"));
    refuse_ipc_ = reinterpret_cast<void (*)(int)>(dlsym(plugin_handle, "nbrcoll_fake_device_refuse_ipc"));
    fail_copies_ = reinterpret_cast<void (*)(int)>(dlsym(plugin_handle, "nbrcoll_fake_device_fail_copies"));
  }
}

void DeviceCollectiveChecks::check(bool ok, const std::string& what) {
  ++checks_;
  if (ok) return;
  ++failures_;
  if (first_failure_.empty()) first_failure_ = what;
  if (failures_ <= 10) std::fprintf(stderr, "[rank %d] FAIL: %s\n", rank_, what.c_str());
}

std::pair<long, long> DeviceCollectiveChecks::world_totals() const {
  long totals[2] = {checks_, failures_};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return {totals[0], totals[1]};
}

long DeviceCollectiveChecks::ipc_opens() const {
  long c[4] = {0, 0, 0, 0};
  if (counters_ != nullptr) counters_(c);
  return c[2];
}

namespace {

// Receive layout: per slot a count and a displacement (in elements), with
// gaps and reversed order for allgatherv; `elements` in all, plus a guard.
struct Layout {
  std::vector<int> counts;
  std::vector<int> displs;
  int elements = 0;
};

int count_of(int count, bool variable, int source) {
  if (!variable) return count;
  return source % 3 == 1 ? 0 : count + source % 5;
}

Layout layout_for(int count, bool variable, const std::vector<int>& in) {
  Layout l;
  l.counts.resize(in.size() + 1);
  l.displs.resize(in.size() + 1);
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::size_t i = variable ? in.size() - 1 - k : k;
    l.counts[i] = in[i] == MPI_PROC_NULL ? count : count_of(count, variable, in[i]);
    l.displs[i] = l.elements;
    l.elements += l.counts[i] + (variable ? 3 : 0);
  }
  l.elements += 5;  // guard after the last block
  return l;
}

std::string name_of(const Graph& g, const char* type_name, int count, bool variable, int call) {
  return g.name + " " + type_name + " count=" + std::to_string(count) + (variable ? " allgatherv" : " allgather") +
         " call=" + std::to_string(call);
}

}  // namespace

// One call on buffers from `mem`, checked against the closed form and PMPI.
void DeviceCollectiveChecks::run_case(MPI_Comm comm, const Graph& g, const Case& c, const std::string& what,
                                      const Allocator& mem) {
  const auto& in = g.in[static_cast<std::size_t>(rank_)];
  int esize = 0;
  MPI_Type_size(c.type, &esize);
  const auto es = static_cast<std::size_t>(esize);
  const Layout lay = layout_for(c.count, c.variable, in);
  const int mycount = count_of(c.count, c.variable, rank_);
  const std::vector<unsigned char> mine = send_bytes(rank_, static_cast<std::size_t>(mycount) * es, c.call);
  const std::vector<unsigned char> fill(static_cast<std::size_t>(lay.elements) * es, 0xA5);

  // Closed form: every slot holds its source's bytes, everything else 0xA5.
  std::vector<unsigned char> expected = fill;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == MPI_PROC_NULL) continue;
    const std::vector<unsigned char> theirs =
        send_bytes(in[i], static_cast<std::size_t>(count_of(c.count, c.variable, in[i])) * es, c.call);
    std::copy(theirs.begin(), theirs.end(), expected.begin() + static_cast<std::ptrdiff_t>(lay.displs[i]) * esize);
  }

  const Buffer sendbuf(dev_, mem, mine);
  const Buffer recvbuf(dev_, mem, fill);
  const int rc = c.variable
                     ? MPI_Neighbor_allgatherv(sendbuf.data(), mycount, c.type, recvbuf.data(), lay.counts.data(),
                                               lay.displs.data(), c.type, comm)
                     : MPI_Neighbor_allgather(sendbuf.data(), mycount, c.type, recvbuf.data(), c.count, c.type, comm);
  check(rc == MPI_SUCCESS, what + ": return code " + std::to_string(rc));
  const std::vector<unsigned char> got = recvbuf.read();
  check(recvbuf.front_intact(), what + ": bytes written before the receive buffer");
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

// The same buffers for several calls: each peer allocation is opened once.
// Then the receive buffer is freed and allocated again (often at the same
// address): a stale mapping would deliver the old bytes.
void DeviceCollectiveChecks::check_cache(MPI_Comm comm, const Graph& g, bool expect_ipc, int& call) {
  const int count = 4099;
  const auto& in = g.in[static_cast<std::size_t>(rank_)];
  const std::size_t bytes = static_cast<std::size_t>(count) * 4;
  std::vector<unsigned char> expected(in.size() * bytes + 8, kGuard);  // 8 guard bytes after the blocks
  long opens_after_first = 0;
  std::unique_ptr<Buffer> kept_send;
  std::unique_ptr<Buffer> kept_recv;
  for (int round = 0; round < 4; ++round, ++call) {
    const std::vector<unsigned char> mine = send_bytes(rank_, bytes, call);
    for (std::size_t i = 0; i < in.size(); ++i) {
      const std::vector<unsigned char> theirs = send_bytes(in[i], bytes, call);
      std::copy(theirs.begin(), theirs.end(), expected.begin() + static_cast<std::ptrdiff_t>(i * bytes));
    }
    // Rounds 0-1 reuse one pair of allocations; rounds 2-3 allocate afresh.
    if (round != 1) {
      kept_send.reset();  // freed first, so the new allocation may take its address
      kept_recv.reset();
      kept_send = std::make_unique<Buffer>(dev_, device_, mine);
      kept_recv = std::make_unique<Buffer>(dev_, device_, std::vector<unsigned char>(expected.size(), 0xA5));
    } else {
      kept_send->write(mine);
    }
    MPI_Neighbor_allgather(kept_send->data(), count, MPI_INT, kept_recv->data(), count, MPI_INT, comm);
    check(kept_recv->read() == expected && kept_recv->front_intact(),
          g.name + " cache round " + std::to_string(round) + ": wrong bytes");
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
void DeviceCollectiveChecks::run_fallback_case(MPI_Comm comm, const Graph& g, bool rank0_on_host, int call) {
  MPI_Datatype strided;
  MPI_Type_vector(5, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  const MPI_Datatype type = rank0_on_host ? MPI_INT : strided;
  const int count = 3;
  MPI_Aint lb = 0;
  MPI_Aint extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  const auto block = static_cast<std::size_t>(count * extent);
  const std::size_t slots = g.in[static_cast<std::size_t>(rank_)].size();
  const std::vector<unsigned char> mine = send_bytes(rank_, block, call);
  const std::vector<unsigned char> fill(slots * block + 16, 0xA5);
  std::vector<unsigned char> got;
  bool front_intact = true;
  if (rank0_on_host && rank_ == 0) {
    HostArea area(fill);
    MPI_Neighbor_allgather(mine.data(), count, type, area.data(), count, type, comm);
    got = area.read();
    front_intact = area.front_intact();
  } else {
    const Buffer sendbuf(dev_, device_, mine);
    const Buffer recvbuf(dev_, device_, fill);
    MPI_Neighbor_allgather(sendbuf.data(), count, type, recvbuf.data(), count, type, comm);
    got = recvbuf.read();
    front_intact = recvbuf.front_intact();
  }
  std::vector<unsigned char> theirs = fill;
  PMPI_Neighbor_allgather(mine.data(), count, type, theirs.data(), count, type, comm);
  check(got == theirs && front_intact,
        g.name + (rank0_on_host ? ": host on rank 0, device elsewhere" : ": vector type on device") +
            ": differs from PMPI on host copies");
  MPI_Type_free(&strided);
}

// A call needs only the ranks its plan names: rank 0 has no neighbours and
// enters its call only after every other rank finished its own and said so.
// Any communicator-wide step inside a call would deadlock here. `on_device`:
// device buffers, else host buffers (in a process with a GPU runtime both
// take the same vote-free route choice).
void DeviceCollectiveChecks::check_no_global_step(bool on_device, int call) {
  if (size_ < 2) return;
  Graph g = empty_graph(size_, "ring without rank 0");
  for (int r = 1; r < size_; ++r) add_edge(g, r, r + 1 < size_ ? r + 1 : 1);
  MPI_Comm comm = create_adjacent(g, rank_);
  const std::size_t bytes = 4099;
  const auto& in = g.in[static_cast<std::size_t>(rank_)];
  for (int round = 0; round < 2; ++round, ++call) {
    const std::vector<unsigned char> mine = send_bytes(rank_, bytes, call);
    const std::vector<unsigned char> expected = gathered_blocks(in, bytes, call);
    const std::vector<unsigned char> fill(expected.size(), 0xA5);
    // Round 0: every rank together (a graph's first call completes nbrcoll's
    // private communicator). Round 1: rank 0 last.
    if (round == 1 && rank_ == 0) {
      for (int r = 1; r < size_; ++r) MPI_Recv(nullptr, 0, MPI_BYTE, r, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    std::vector<unsigned char> got;
    bool front_intact = true;
    int rc = MPI_SUCCESS;
    if (on_device) {
      const Buffer sendbuf(dev_, device_, mine);
      const Buffer recvbuf(dev_, device_, fill);
      rc = MPI_Neighbor_allgather(sendbuf.data(), static_cast<int>(bytes), MPI_BYTE, recvbuf.data(),
                                  static_cast<int>(bytes), MPI_BYTE, comm);
      got = recvbuf.read();
      front_intact = recvbuf.front_intact();
    } else {
      HostArea area(fill);
      rc = MPI_Neighbor_allgather(mine.data(), static_cast<int>(bytes), MPI_BYTE, area.data(), static_cast<int>(bytes),
                                  MPI_BYTE, comm);
      got = area.read();
      front_intact = area.front_intact();
    }
    if (round == 1 && rank_ != 0) MPI_Send(nullptr, 0, MPI_BYTE, 0, 77, MPI_COMM_WORLD);
    const std::string what =
        std::string("no global step, ") + (on_device ? "device" : "host") + " buffers, round " + std::to_string(round);
    check(rc == MPI_SUCCESS, what + ": return code " + std::to_string(rc));
    check(got == expected && front_intact, what + ": wrong bytes");
  }
  MPI_Comm_free(&comm);
}

// Rank 0's new allocations cannot be exported by IPC, everybody else's can:
// rank 0 sends its fragments by MPI while its peers send theirs by IPC.
void DeviceCollectiveChecks::check_one_rank_without_ipc(const Graph& g, MPI_Comm comm, int& call) {
  if (refuse_ipc_ == nullptr) return;
  if (rank_ == 0) refuse_ipc_(1);
  for (const int count : {1, 4099}) {
    const Case c{MPI_INT, "int", count, count == 1, call++};
    run_case(comm, g, c, name_of(g, c.type_name, c.count, c.variable, c.call) + " (rank 0 without IPC)", device_);
  }
  if (rank_ == 0) refuse_ipc_(0);
}

// Rank 1's copy kernels fail for one call (so the blocks it forwards, if
// its plan forwards any, are missing too). Rank 1 returns an error; every rank may
// return an error or success, never hang, and success means every byte is
// right (a rank that forwards a block it could not copy says so to the
// ranks it forwards to). Then the next call works everywhere.
void DeviceCollectiveChecks::check_copy_failure(const Graph& g, MPI_Comm comm, int& call) {
  if (fail_copies_ == nullptr || size_ < 2) return;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  const auto& in = g.in[static_cast<std::size_t>(rank_)];
  const std::size_t bytes = 4099 * 4;
  for (int round = 0; round < 2; ++round, ++call) {
    const std::vector<unsigned char> mine = send_bytes(rank_, bytes, call);
    const std::vector<unsigned char> expected = gathered_blocks(in, bytes, call);
    const std::vector<unsigned char> fill(expected.size(), 0xA5);
    const Buffer sendbuf(dev_, device_, mine);
    const Buffer recvbuf(dev_, device_, fill);
    if (round == 0 && rank_ == 1) fail_copies_(1 << 20);
    const int rc = MPI_Neighbor_allgather(sendbuf.data(), 4099, MPI_INT, recvbuf.data(), 4099, MPI_INT, comm);
    if (rank_ == 1) fail_copies_(0);
    const std::vector<unsigned char> got = recvbuf.read();
    const std::string what = g.name + " copy failure round " + std::to_string(round);
    check(recvbuf.front_intact(), what + ": bytes written before the receive buffer");
    if (round == 0 && rank_ == 1) check(rc != MPI_SUCCESS, what + ": the failed copy was not reported");
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

void DeviceCollectiveChecks::run_all(const SuiteOptions& o) {
  std::vector<Graph> graphs = {
      random_graph(size_, "er0.4+dup+self", 0.4, 21, true, true, false),
      random_graph(size_, "er1.0", 1.0, 22, false, false, false),
      random_graph(size_, "er0.5+null", 0.5, 23, true, true, true),
      ring_graph(size_),
      empty_graph(size_, "empty"),
  };
  MPI_Datatype int3;
  MPI_Type_contiguous(3, MPI_INT, &int3);
  MPI_Type_commit(&int3);
  struct TypeName {
    MPI_Datatype type;
    const char* name;
  };
  const std::vector<TypeName> types = {{MPI_BYTE, "byte"}, {MPI_DOUBLE, "double"}, {int3, "contig3xint"}};
  const std::vector<int> counts =
      o.quick ? std::vector<int>{0, 1, 4099, 70001} : std::vector<int>{0, 1, 7, 4099, 70001};
  int call = 0;
  for (const Graph& g : graphs) {
    if (g.has_null && !o.null_graphs) continue;
    MPI_Comm comm = create_adjacent(g, rank_);
    for (const TypeName& t : types) {
      for (int count : counts) {
        for (bool variable : {false, true}) {
          const Case c{t.type, t.name, count, variable, call++};
          run_case(comm, g, c, name_of(g, c.type_name, c.count, c.variable, c.call), device_);
        }
      }
    }
    // A few MiB per block: many chunks per fragment.
    const Case big{MPI_BYTE, "byte", 3 * (1 << 20) + 5, false, call++};
    if (g.name != "er1.0" || !o.quick) run_case(comm, g, big, name_of(g, "byte", big.count, false, big.call), device_);
    if (!g.has_null) check_cache(comm, g, o.expect_ipc, call);
    if (!g.has_null) run_fallback_case(comm, g, true, call++);
    if (o.mpi_reads_device && !g.has_null) run_fallback_case(comm, g, false, call++);
    if (g.name == "er1.0") {
      check_one_rank_without_ipc(g, comm, call);
      if (o.copy_failure) check_copy_failure(g, comm, call);
    }
    MPI_Comm_free(&comm);
  }
  MPI_Type_free(&int3);
  check_no_global_step(true, call);
  check_no_global_step(false, call + 2);
}

void DeviceCollectiveChecks::run_rank0_memory(const Allocator& rank0) {
  const std::vector<Graph> graphs = {random_graph(size_, "er1.0", 1.0, 22, false, false, false), ring_graph(size_)};
  int call = 1000;
  for (const Graph& g : graphs) {
    MPI_Comm comm = create_adjacent(g, rank_);
    for (const int count : {1, 4099, 70001}) {
      for (const bool variable : {false, true}) {
        const Case c{MPI_INT, "int", count, variable, call++};
        run_case(comm, g, c,
                 name_of(g, c.type_name, c.count, c.variable, c.call) + " (rank 0's buffers: " + rank0.name + ")",
                 rank_ == 0 ? rank0 : device_);
      }
    }
    MPI_Comm_free(&comm);
  }
}

}  // namespace nbrcoll_check
