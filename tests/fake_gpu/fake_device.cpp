// A device backend plugin with no GPU behind it, so that CI can drive the
// whole device data path (IPC caches, copy signals, staging, the device
// agreement) in real multi-process MPI runs.
//  - "Device memory" is POSIX shared memory mapped PROT_NONE: any CPU access
//    from nbrcoll (or from the MPI, when it is not meant to touch device
//    memory) crashes the test, as it would on a GPU. Only this plugin's own
//    copies open the pages, briefly. NBRCOLL_FAKE_DEVICE_UNPROTECTED=1 leaves
//    them readable (to stand in for a GPU-aware MPI).
//    NBRCOLL_FAKE_DEVICE_NO_IPC=1 makes every export fail, like memory from
//    stream-ordered pools under CUDA's legacy IPC (nbrcoll_fake_device_refuse_ipc
//    does so for one process); nbrcoll_fake_device_fail_copies makes copy
//    kernels fail. NBRCOLL_FAKE_DEVICE_CORRUPT=1 makes every copy kernel of an
//    odd byte count write its last byte wrong (a broken kernel's tail: for
//    checking that the self-test sees it).
//  - IPC handles name the shared memory object; opening maps it here.
//  - Copies run at once, but an event reports "done" only on its second
//    query, so the executor's polling path runs as with real kernels.
//  - Counters (allocations, handle exports, opens, closes) for the tests.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <string>

#include "transport/device/backend_abi.h"

namespace {

struct Region {
  std::size_t size;
  std::uint64_t id;
  std::string name;
  bool owned;  // allocated here (else an IPC mapping of another process's memory)
};

struct State {
  std::mutex mutex;
  std::map<std::uintptr_t, Region> regions;  // base -> region
  std::uint64_t next_id = 1;
  long counters[4] = {0, 0, 0, 0};  // allocations, ipc gets, ipc opens, ipc closes
  bool protect = true;
  bool no_ipc = false;   // NBRCOLL_FAKE_DEVICE_NO_IPC=1: allocations cannot be exported
  bool corrupt = false;  // NBRCOLL_FAKE_DEVICE_CORRUPT=1: odd-sized kernel copies end with a wrong byte
  int fail_copies = 0;   // the next this many copy_async calls fail (a test's hook)
  std::string error;
  // Part of every object name: a pid alone is not unique, because pids are
  // reused and a process killed before freeing (an MPI_Abort) leaves its
  // objects behind in /dev/shm.
  std::uint64_t nonce = 0;
};

std::uint64_t fresh_nonce() {
  std::uint64_t n = 0;
  if (getrandom(&n, sizeof(n), 0) != static_cast<ssize_t>(sizeof(n))) {
    n = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&n)) ^ static_cast<std::uint64_t>(time(nullptr));
  }
  return n;
}

// Objects a process still owns at a normal exit are unlinked, so that a test
// that forgets a free leaves nothing in /dev/shm.
void unlink_owned_at_exit();

State& state() {
  static auto* s = [] {
    auto* st = new State;
    const char* v = std::getenv("NBRCOLL_FAKE_DEVICE_UNPROTECTED");
    st->protect = !(v != nullptr && std::strcmp(v, "1") == 0);
    const char* n = std::getenv("NBRCOLL_FAKE_DEVICE_NO_IPC");
    st->no_ipc = n != nullptr && std::strcmp(n, "1") == 0;
    const char* bad = std::getenv("NBRCOLL_FAKE_DEVICE_CORRUPT");
    st->corrupt = bad != nullptr && std::strcmp(bad, "1") == 0;
    st->nonce = fresh_nonce();
    std::atexit(unlink_owned_at_exit);
    return st;
  }();
  return *s;
}

void unlink_owned_at_exit() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto& [base, region] : s.regions) {
    if (region.owned) shm_unlink(region.name.c_str());
  }
}

int fail(State& s, const std::string& why) {
  s.error = why;
  return 1;
}

// The region holding p, or nullptr. Caller holds the mutex.
std::pair<const std::uintptr_t, Region>* find(State& s, const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = s.regions.upper_bound(a);
  if (it == s.regions.begin()) return nullptr;
  --it;
  return a < it->first + it->second.size ? &*it : nullptr;
}

void set_access(State& s, const void* p, bool open) {
  if (!s.protect) return;
  if (auto* r = find(s, p)) {
    mprotect(reinterpret_cast<void*>(r->first), r->second.size, open ? PROT_READ | PROT_WRITE : PROT_NONE);
  }
}

// Copies with both ends' regions opened for the moment (either may be host memory).
int guarded_copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return 0;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  set_access(s, dst, true);
  set_access(s, src, true);
  std::memmove(dst, src, bytes);
  set_access(s, dst, false);
  set_access(s, src, false);
  return 0;
}

int map_shared(State& s, const std::string& name, int flags, std::size_t size, void** out) {
  const int fd = shm_open(name.c_str(), flags, 0600);
  if (fd < 0) {
    const int err = errno;  // kept for the caller: EEXIST means "pick another name"
    fail(s, "shm_open " + name + ": " + std::strerror(err));
    errno = err;
    return 1;
  }
  if ((flags & O_CREAT) != 0 && ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    shm_unlink(name.c_str());
    return fail(s, "ftruncate: " + std::string(std::strerror(errno)));
  }
  if (size == 0) {
    struct stat st {};
    fstat(fd, &st);
    size = static_cast<std::size_t>(st.st_size);
  }
  void* p = mmap(nullptr, size, s.protect ? PROT_NONE : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return fail(s, "mmap: " + std::string(std::strerror(errno)));
  s.regions[reinterpret_cast<std::uintptr_t>(p)] = Region{size, s.next_id++, name, (flags & O_CREAT) != 0};
  *out = p;
  return 0;
}

int pointer_info(const void* p, nbrcoll_pointer_info* out) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *out = {};
  if (auto* r = find(s, p)) {
    out->is_device = 1;
    out->buffer_id = r->second.id;
    out->base = reinterpret_cast<void*>(r->first);
    out->size = r->second.size;
  }
  return 0;
}

int pci_bus_id(int, char* out, int len) {
  std::snprintf(out, static_cast<std::size_t>(len), "0000:00:00.0");
  return 0;
}

int current_device(int* d) {
  *d = 0;
  return 0;
}

int ipc_get(void* base, nbrcoll_ipc_handle* out) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.regions.find(reinterpret_cast<std::uintptr_t>(base));
  if (it == s.regions.end() || !it->second.owned) return fail(s, "ipc_get: not the base of an allocation");
  if (s.no_ipc) return fail(s, "ipc_get: this allocation cannot be exported (NBRCOLL_FAKE_DEVICE_NO_IPC)");
  ++s.counters[1];
  std::memset(out->bytes, 0, sizeof(out->bytes));
  std::snprintf(reinterpret_cast<char*>(out->bytes), sizeof(out->bytes), "%s", it->second.name.c_str());
  return 0;
}

int ipc_open(const nbrcoll_ipc_handle* h, void** base) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.counters[2];
  char name[NBRCOLL_IPC_HANDLE_BYTES + 1] = {};
  std::memcpy(name, h->bytes, NBRCOLL_IPC_HANDLE_BYTES);
  return map_shared(s, name, O_RDWR, 0, base);
}

int ipc_close(void* base) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.regions.find(reinterpret_cast<std::uintptr_t>(base));
  if (it == s.regions.end() || it->second.owned) return fail(s, "ipc_close: not an IPC mapping");
  ++s.counters[3];
  munmap(base, it->second.size);
  s.regions.erase(it);
  return 0;
}

int stream_create(void** stream) {
  *stream = new int(0);
  return 0;
}
int stream_destroy(void* stream) {
  delete static_cast<int*>(stream);
  return 0;
}
int event_create(void** event) {
  *event = new std::atomic<int>(0);
  return 0;
}
int event_destroy(void* event) {
  delete static_cast<std::atomic<int>*>(event);
  return 0;
}
int event_record(void* event, void*) {
  static_cast<std::atomic<int>*>(event)->store(1);  // queries before "done"
  return 0;
}
int event_query(void* event, int* done) {
  auto* left = static_cast<std::atomic<int>*>(event);
  *done = left->load() <= 0 ? 1 : 0;
  if (*done == 0) left->fetch_sub(1);
  return 0;
}
int copy_async(void* dst, const void* src, std::size_t bytes, void*) {
  bool corrupt = false;
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.fail_copies > 0) {
      --s.fail_copies;
      return fail(s, "copy_async: failure injected by the test");
    }
    corrupt = s.corrupt && bytes % 2 == 1;
  }
  const int rc = guarded_copy(dst, src, bytes);
  if (rc != 0 || !corrupt) return rc;
  // Through guarded copies: either end may be device memory the CPU cannot touch.
  unsigned char* last = static_cast<unsigned char*>(dst) + bytes - 1;
  unsigned char byte = 0;
  guarded_copy(&byte, last, 1);
  byte = static_cast<unsigned char>(~byte);
  return guarded_copy(last, &byte, 1);
}
int stream_sync(void*) {
  return 0;
}
int runtime_copy(void* dst, const void* src, std::size_t bytes) {
  return guarded_copy(dst, src, bytes);
}
int copy_to_host(void* host, const void* device, std::size_t bytes) {
  return guarded_copy(host, device, bytes);
}
int copy_to_device(void* device, const void* host, std::size_t bytes) {
  return guarded_copy(device, host, bytes);
}
int host_alloc(void** p, std::size_t bytes) {
  *p = std::malloc(bytes == 0 ? 1 : bytes);
  return *p == nullptr ? 1 : 0;
}
int host_free(void* p) {
  std::free(p);
  return 0;
}
const char* last_error() {
  return state().error.c_str();
}
int device_count(int* n) {
  *n = 1;
  return 0;
}
int set_device(int d) {
  return d == 0 ? 0 : fail(state(), "set_device: the fake has one device, 0");
}

int device_malloc(void** p, std::size_t bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t size = ((bytes == 0 ? 1 : bytes) + page - 1) / page * page;
  ++s.counters[0];
  for (int attempt = 0;; ++attempt) {
    char name[64];
    std::snprintf(name, sizeof(name), "/nbrcoll-fake-%d-%016llx-%llu", static_cast<int>(getpid()),
                  static_cast<unsigned long long>(s.nonce), static_cast<unsigned long long>(s.next_id));
    const int rc = map_shared(s, name, O_CREAT | O_EXCL | O_RDWR, size, p);
    if (rc == 0 || errno != EEXIST || attempt == 8) return rc;
    s.nonce = fresh_nonce();  // somebody else's object by that name: pick another
  }
}

int device_free(void* p) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto it = s.regions.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == s.regions.end() || !it->second.owned) return fail(s, "device_free: not an allocation");
  shm_unlink(it->second.name.c_str());
  munmap(p, it->second.size);
  s.regions.erase(it);
  return 0;
}

const nbrcoll_device_backend kTable = {
    NBRCOLL_DEVICE_ABI_VERSION,
    "fake",
    pointer_info,
    pci_bus_id,
    current_device,
    ipc_get,
    ipc_open,
    ipc_close,
    stream_create,
    stream_destroy,
    event_create,
    event_destroy,
    event_record,
    event_query,
    copy_async,
    stream_sync,
    copy_to_host,
    copy_to_device,
    host_alloc,
    host_free,
    last_error,
    device_count,
    set_device,
    device_malloc,
    device_free,
    runtime_copy,
};

}  // namespace

extern "C" {
__attribute__((visibility("default"))) const nbrcoll_device_backend* nbrcoll_device_backend_v1() {
  return &kTable;
}
// allocations, IPC handle exports, IPC opens, IPC closes
__attribute__((visibility("default"))) void nbrcoll_fake_device_counters(long out[4]) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (int i = 0; i < 4; ++i) out[i] = s.counters[i];
}
// Test hooks, per process: exports of this process's allocations fail from
// now on (refuse != 0) or work again; the next `count` copy kernels fail.
__attribute__((visibility("default"))) void nbrcoll_fake_device_refuse_ipc(int refuse) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.no_ipc = refuse != 0;
}
__attribute__((visibility("default"))) void nbrcoll_fake_device_fail_copies(int count) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.fail_copies = count;
}
}
