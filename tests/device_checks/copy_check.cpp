#include "tests/device_checks/copy_check.h"

#include <cstring>
#include <random>
#include <sstream>

namespace nbrcoll_check {

namespace {

unsigned char guard_byte(std::size_t i) {
  return static_cast<unsigned char>(0xA5 ^ (i * 7));
}

std::string failed(const nbrcoll_device_backend* g, const char* what) {
  return std::string(what) + " failed: " + g->last_error();
}

}  // namespace

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

DeviceAlloc::DeviceAlloc(const nbrcoll_device_backend* backend, std::size_t n) : g(backend), bytes(n) {
  if (g->device_malloc(&p, n) != 0) {
    p = nullptr;
    error = "device_malloc(" + std::to_string(n) + "): " + g->last_error();
  }
}

DeviceAlloc::~DeviceAlloc() {
  if (p != nullptr) g->device_free(p);
}

CopyCheck::CopyCheck(const nbrcoll_device_backend* g, std::size_t max_size, void* stream)
    : g_(g),
      stream_(stream),
      n_(max_size + 2 * kCopyGuard + kCopyMaxOffset),
      dst_(g, n_),
      src_(g, n_),
      src_host_(random_bytes(n_, static_cast<unsigned>(max_size))),
      guard_(n_),
      out_(n_) {
  for (std::size_t i = 0; i < n_; ++i) guard_[i] = guard_byte(i);
  if (!dst_.error.empty() || !src_.error.empty()) {
    setup_error_ = dst_.error.empty() ? src_.error : dst_.error;
  } else if (g_->copy_to_device_sync(src_.p, src_host_.data(), n_) != 0) {
    setup_error_ = failed(g_, "copy_to_device_sync");
  }
}

std::string CopyCheck::check(std::size_t size, std::size_t doff, std::size_t soff) {
  if (!setup_error_.empty()) return setup_error_;
  if (g_->copy_to_device_sync(dst_.p, guard_.data(), n_) != 0) return failed(g_, "copy_to_device_sync");
  if (g_->copy_async(dst_.at(kCopyGuard + doff), src_.at(kCopyGuard + soff), size, stream_) != 0)
    return failed(g_, "copy_async");
  if (g_->stream_sync(stream_) != 0) return failed(g_, "stream_sync");
  if (g_->copy_to_host_sync(out_.data(), dst_.p, n_) != 0) return failed(g_, "copy_to_host_sync");
  const std::size_t lo = kCopyGuard + doff, hi = kCopyGuard + doff + size;
  for (std::size_t i = 0; i < n_; ++i) {
    const bool inside = i >= lo && i < hi;
    const unsigned char want = inside ? src_host_[i - doff + soff] : guard_[i];
    if (out_[i] != want) {
      std::ostringstream s;
      s << "size " << size << ", dst offset " << doff << ", src offset " << soff << ": byte " << i
        << (inside ? " (copied)" : " (guard)") << " is " << int(out_[i]) << ", want " << int(want);
      return s.str();
    }
  }
  return "";
}

SweepResult sweep_small_copies(const nbrcoll_device_backend* g, void* stream) {
  const std::size_t sizes[] = {0,  1,  2,  3,  4,  5,  7,  8,   15,  16,  17,  19,   20,   31,
                               32, 33, 35, 47, 63, 64, 65, 100, 255, 256, 257, 4095, 4096, 4097};
  SweepResult r;
  CopyCheck c(g, 4097, stream);
  for (std::size_t size : sizes) {
    for (std::size_t doff = 0; doff <= kCopyMaxOffset; ++doff) {
      for (std::size_t soff = 0; soff <= kCopyMaxOffset; ++soff) {
        ++r.copies;
        r.first_failure = c.check(size, doff, soff);
        if (!r.first_failure.empty()) return r;
      }
    }
  }
  return r;
}

SweepResult sweep_large_copies(const nbrcoll_device_backend* g, void* stream) {
  const std::size_t sizes[] = {65537, (std::size_t(1) << 20) + 3, (std::size_t(8) << 20) + 5,
                               (std::size_t(33) << 20) + 1};
  const std::size_t offsets[][2] = {{0, 0}, {1, 1}, {15, 15}, {0, 1},  {1, 0}, {3, 7},
                                    {4, 8}, {8, 4}, {16, 17}, {17, 2}, {2, 6}, {13, 5}};
  SweepResult r;
  CopyCheck c(g, sizes[3], stream);
  for (std::size_t size : sizes) {
    for (const auto& o : offsets) {
      ++r.copies;
      r.first_failure = c.check(size, o[0], o[1]);
      if (!r.first_failure.empty()) return r;
    }
  }
  return r;
}

std::string missing_functions(const nbrcoll_device_backend& g) {
  const std::pair<const char*, const void*> fns[] = {
      {"pointer_info", reinterpret_cast<const void*>(g.pointer_info)},
      {"pci_bus_id", reinterpret_cast<const void*>(g.pci_bus_id)},
      {"current_device", reinterpret_cast<const void*>(g.current_device)},
      {"ipc_get", reinterpret_cast<const void*>(g.ipc_get)},
      {"ipc_open", reinterpret_cast<const void*>(g.ipc_open)},
      {"ipc_close", reinterpret_cast<const void*>(g.ipc_close)},
      {"stream_create", reinterpret_cast<const void*>(g.stream_create)},
      {"stream_destroy", reinterpret_cast<const void*>(g.stream_destroy)},
      {"event_create", reinterpret_cast<const void*>(g.event_create)},
      {"event_destroy", reinterpret_cast<const void*>(g.event_destroy)},
      {"event_record", reinterpret_cast<const void*>(g.event_record)},
      {"event_query", reinterpret_cast<const void*>(g.event_query)},
      {"copy_async", reinterpret_cast<const void*>(g.copy_async)},
      {"stream_sync", reinterpret_cast<const void*>(g.stream_sync)},
      {"copy_to_host_sync", reinterpret_cast<const void*>(g.copy_to_host_sync)},
      {"copy_to_device_sync", reinterpret_cast<const void*>(g.copy_to_device_sync)},
      {"host_alloc_pinned", reinterpret_cast<const void*>(g.host_alloc_pinned)},
      {"host_free_pinned", reinterpret_cast<const void*>(g.host_free_pinned)},
      {"last_error", reinterpret_cast<const void*>(g.last_error)},
      {"device_count", reinterpret_cast<const void*>(g.device_count)},
      {"set_device", reinterpret_cast<const void*>(g.set_device)},
      {"device_malloc", reinterpret_cast<const void*>(g.device_malloc)},
      {"device_free", reinterpret_cast<const void*>(g.device_free)},
      {"runtime_copy_sync", reinterpret_cast<const void*>(g.runtime_copy_sync)}};
  std::string missing;
  for (const auto& [name, fn] : fns) {
    if (fn == nullptr) missing += (missing.empty() ? "" : " ") + std::string(name);
  }
  if (g.name == nullptr || *g.name == '\0') missing += (missing.empty() ? "" : " ") + std::string("name");
  return missing;
}

std::string check_device_pointer_info(const nbrcoll_device_backend* g, const void* p, std::size_t n) {
  int dev = -1;
  if (g->current_device(&dev) != 0) return failed(g, "current_device");
  nbrcoll_pointer_info info{};
  if (g->pointer_info(p, &info) != 0) return failed(g, "pointer_info");
  std::ostringstream s;
  const auto* base = static_cast<const unsigned char*>(info.base);
  const auto* first = static_cast<const unsigned char*>(p);
  if (info.is_device != 1)
    s << "is_device " << info.is_device << ", want 1";
  else if (info.device != dev)
    s << "device " << info.device << ", want the current one, " << dev;
  else if (info.buffer_id == 0)
    s << "buffer id 0";
  else if (base == nullptr || base > first || base + info.size < first + n)
    s << "base " << info.base << " + " << info.size << " does not hold " << p << " + " << n;
  if (!s.str().empty()) return s.str();
  nbrcoll_pointer_info inner{};
  if (g->pointer_info(first + n / 2, &inner) != 0) return failed(g, "pointer_info (inside)");
  if (inner.is_device != 1 || inner.device != dev || inner.buffer_id != info.buffer_id || inner.base != info.base ||
      inner.size != info.size)
    return "a pointer inside the allocation is described otherwise than its start";
  return "";
}

std::string check_host_pointer_info(const nbrcoll_device_backend* g, const void* p, const char* what) {
  nbrcoll_pointer_info info{};
  info.is_device = 7;
  if (g->pointer_info(p, &info) != 0) return std::string(what) + ": " + failed(g, "pointer_info");
  if (info.is_device != 0) return std::string(what) + ": is_device " + std::to_string(info.is_device) + ", want 0";
  return "";
}

}  // namespace nbrcoll_check
