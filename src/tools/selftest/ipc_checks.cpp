// ipc.same_gpu and ipc.cross_gpu: IPC between pairs of ranks through the
// plugin's C ABI and nbrcoll's own handle caches (src/transport/device/ipc_cache.h):
// the sender exports an allocation (the handle got once, cached on the next
// ask), the receiver opens it (once: the second lookup is a cache hit),
// copies an odd-sized fragment at odd offsets with the copy kernel and reads
// part of it to the host, then the sender frees and reallocates (often at the
// same address: the receiver must not use its stale mapping) and the
// receiver closes its mappings. Each rank receives from one peer in a ring;
// a ring whose pairs share a GPU and one whose pairs cross GPUs, where the
// node has several.
#include <mpi.h>

#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "tests/device_checks/copy_check.h"
#include "tools/selftest/context.h"
#include "transport/device/ipc_cache.h"

namespace selftest {

namespace {

constexpr std::size_t kFragment = (std::size_t(1) << 20) + 13;
constexpr std::size_t kOffset = 13;  // of the fragment inside the sender's allocation
constexpr std::size_t kAllocation = kFragment + 64;
constexpr std::size_t kDstOffset = 7;  // of the copy inside the receiver's buffer
constexpr unsigned char kGuard = 0xA5;

unsigned seed(int rank, int round) {
  return static_cast<unsigned>(rank * 16 + round + 1);
}

// One ring: rank r sends to r + offset and receives from r - offset.
class Ring {
 public:
  Ring(Context& c, int offset)
      : c_(c), dst_((c.rank + offset) % c.size), src_((c.rank - offset % c.size + c.size) % c.size) {}
  [[nodiscard]] int source() const { return src_; }

  Outcome run() {
    // Whatever happened, every rank takes every step: the others wait for it.
    std::string error = round(1);
    error = keep_first(error, round(2));
    error = keep_first(error, close_all());
    const bool same_address = reused_;
    if (!error.empty()) return fail("from rank " + std::to_string(src_) + ": " + error);
    return pass("from rank " + std::to_string(src_) +
                ": export (handle got once, cached on the next ask), open, cache hit (the second lookup opened "
                "nothing), copy kernel and host read of " +
                std::to_string(kFragment) +
                " B at odd offsets, reopened after the peer freed and reallocated (same "
                "address: " +
                (same_address ? "yes" : "no") + "), close");
  }

 private:
  static std::string keep_first(const std::string& a, const std::string& b) { return a.empty() ? b : a; }

  std::string failed(const char* what) const { return std::string(what) + ": " + c_.g->last_error(); }

  // The sender side of round `r`: a fresh allocation of pattern (rank, r),
  // exported; its descriptor goes to dst_ while src_'s comes in.
  std::string send_descriptor(int r, nbrcoll::IpcDescriptor& in) {
    std::string error;
    nbrcoll::IpcDescriptor out{};
    if (mine_ != nullptr) c_.g->device_free(mine_);
    mine_ = nullptr;
    const std::vector<unsigned char> bytes = nbrcoll_check::random_bytes(kAllocation, seed(c_.rank, r));
    nbrcoll_pointer_info info{};
    const auto get = [this](void* base, nbrcoll_ipc_handle& h) { return c_.g->ipc_get(base, &h); };
    if (c_.g->device_malloc(&mine_, kAllocation) != 0) {
      mine_ = nullptr;
      error = failed("device_malloc");
    } else if (c_.g->copy_to_device_sync(mine_, bytes.data(), kAllocation) != 0) {
      error = failed("copy_to_device_sync");
    } else if (c_.g->pointer_info(mine_, &info) != 0) {
      error = failed("pointer_info");
    } else if (exports_.handle(info.base, info.buffer_id, get, out.handle) != 0) {
      error = failed("ipc_get");
    } else if (exports_.handle(info.base, info.buffer_id, get, out.handle) != 0 || exports_.gets() != r) {
      error = "the export cache asked for the handle again (" + std::to_string(exports_.gets()) + " asks)";
    }
    out.missing = error.empty() ? 0 : 1;
    out.bytes = kFragment;
    out.buffer_id = info.buffer_id;
    out.base = reinterpret_cast<std::uintptr_t>(info.base);
    out.size = info.size;
    out.offset = kOffset + static_cast<std::uint64_t>(static_cast<unsigned char*>(mine_) -
                                                      static_cast<unsigned char*>(info.base));
    MPI_Sendrecv(&out, sizeof out, MPI_BYTE, dst_, 31, &in, sizeof in, MPI_BYTE, src_, 31, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (error.empty() && in.missing != 0) error = "rank " + std::to_string(src_) + " could not export";
    return error;
  }

  // Map the peer's allocation, copy the fragment into our own buffer with
  // the kernel, check it and the guards, read part of it to the host.
  std::string receive(int r, const nbrcoll::IpcDescriptor& d) {
    const long opens_before = imports_.stats().opens;
    void* mapped = nullptr;
    if (imports_.map(src_, d, open_, close_, &mapped) != 0) return failed("ipc_open");
    if (imports_.stats().opens != opens_before + 1) return "the import cache did not open the new allocation";
    const std::vector<unsigned char> want = nbrcoll_check::random_bytes(kAllocation, seed(src_, r));
    const unsigned char* peer = static_cast<unsigned char*>(mapped) + d.offset;
    nbrcoll_check::DeviceAlloc dst(c_.g, kFragment + 2 * kDstOffset);
    if (dst.p == nullptr) return dst.error;
    std::vector<unsigned char> got(dst.bytes, kGuard);
    void* stream = nullptr;
    if (c_.g->copy_to_device_sync(dst.p, got.data(), dst.bytes) != 0) return failed("copy_to_device_sync");
    if (c_.g->stream_create(&stream) != 0) return failed("stream_create");
    const bool copied =
        c_.g->copy_async(dst.at(kDstOffset), peer, kFragment, stream) == 0 && c_.g->stream_sync(stream) == 0;
    c_.g->stream_destroy(stream);
    if (!copied) return failed("copy kernel from the peer's memory");
    if (c_.g->copy_to_host_sync(got.data(), dst.p, dst.bytes) != 0) return failed("copy_to_host_sync");
    for (std::size_t i = 0; i < got.size(); ++i) {
      const bool inside = i >= kDstOffset && i < kDstOffset + kFragment;
      if (got[i] != (inside ? want[kOffset + i - kDstOffset] : kGuard))
        return "copied byte " + std::to_string(i) + (inside ? " is wrong" : " (a guard) was overwritten");
    }
    std::vector<unsigned char> host(4099);
    if (c_.g->copy_to_host_sync(host.data(), peer + 5, host.size()) != 0) return failed("host read of peer memory");
    if (std::memcmp(host.data(), want.data() + kOffset + 5, host.size()) != 0) return "host read: wrong bytes";
    void* again = nullptr;
    const long hits = imports_.stats().hits;
    if (imports_.map(src_, d, open_, close_, &again) != 0) return failed("ipc_open");
    if (again != mapped || imports_.stats().hits != hits + 1 || imports_.stats().opens != opens_before + 1)
      return "the second lookup of the same allocation was no cache hit";
    return "";
  }

  std::string round(int r) {
    nbrcoll::IpcDescriptor in{};
    const auto before = reinterpret_cast<std::uintptr_t>(mine_);
    std::string error = send_descriptor(r, in);
    if (r == 2) reused_ = reinterpret_cast<std::uintptr_t>(mine_) == before;
    if (error.empty()) error = receive(r, in);
    MPI_Barrier(MPI_COMM_WORLD);  // nobody frees what a peer still reads
    return error;
  }

  std::string close_all() {
    std::string error;
    for (void* m : std::set<void*>(open_maps_)) {
      if (c_.g->ipc_close(m) != 0 && error.empty()) error = failed("ipc_close");
      open_maps_.erase(m);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (mine_ != nullptr && c_.g->device_free(mine_) != 0 && error.empty()) error = failed("device_free");
    mine_ = nullptr;
    return error;
  }

  Context& c_;
  int dst_, src_;
  void* mine_ = nullptr;
  bool reused_ = false;
  nbrcoll::IpcExportCache exports_;
  nbrcoll::IpcImportCache imports_;
  std::set<void*> open_maps_;
  nbrcoll::IpcImportCache::Open open_ = [this](const nbrcoll_ipc_handle& h, void** m) {
    const int rc = c_.g->ipc_open(&h, m);
    if (rc == 0) open_maps_.insert(*m);
    return rc;
  };
  nbrcoll::IpcImportCache::Close close_ = [this](void* m) {
    open_maps_.erase(m);
    return c_.g->ipc_close(m);
  };
};

}  // namespace

void check_ipc(Context& c) {
  if (!c.runs("ipc")) {
    c.report->check("ipc.same_gpu", skip("--skip ipc"));
    c.report->check("ipc.cross_gpu", skip("--skip ipc"));
    return;
  }
  // Every rank's device, to tell the pairs apart.
  char bus[64] = {};
  std::snprintf(bus, sizeof bus, "%s", c.bus_id.c_str());
  std::vector<char> all(static_cast<std::size_t>(c.size) * sizeof bus);
  MPI_Allgather(bus, sizeof bus, MPI_CHAR, all.data(), sizeof bus, MPI_CHAR, MPI_COMM_WORLD);
  auto same_device = [&](int r) { return std::strcmp(&all[static_cast<std::size_t>(r) * sizeof bus], bus) == 0; };
  // Rank r takes device r % devices: r and r + devices share one, r and r + 1
  // do not when there are several. Every rank runs the same rings.
  int devices = c.devices;
  MPI_Allreduce(MPI_IN_PLACE, &devices, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  std::vector<int> offsets;
  if (devices < c.size) offsets.push_back(devices);
  if (devices > 1 && c.size > 1) offsets.push_back(1);
  Outcome same = skip(c.size < 2 ? "one rank" : "no two ranks share a GPU");
  Outcome cross = skip(c.size < 2 ? "one rank" : "one GPU");
  for (const int offset : offsets) {
    Ring ring(c, offset);
    const bool shared = same_device(ring.source());
    Outcome o = ring.run();
    if (!shared && c.extras.can_access_peer) {
      const int can = c.extras.can_access_peer(c.device, ring.source() % devices);
      o.detail += std::string("; peer access: ") + (can == 1 ? "yes" : can == 0 ? "no" : "?");
    }
    Outcome& slot = shared ? same : cross;
    if (slot.status != Status::kFail) slot = o;
  }
  c.report->check("ipc.same_gpu", same);
  c.report->check("ipc.cross_gpu", cross);
}

}  // namespace selftest
