// nbrcoll-copy-bench: the device backend's copy kernel (copy_async +
// stream_sync) against the GPU runtime's own device-to-device copy
// (runtime_copy_sync), 64 KiB to 256 MiB, interleaved repetitions after a
// warm-up. Talks to the plugin through the C ABI only (dlopen).
// Exit status: 0 done, 1 error or wrong bytes, 2 bad usage, 77 no plugin or
// no GPU (the "skipped" code of ctest and automake).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/device/copy_timing.h"
#include "transport/device/backend_abi.h"
#include "transport/device/open_backend.h"

#ifndef NBRCOLL_COPY_BENCH_DEFAULT_BACKEND
#define NBRCOLL_COPY_BENCH_DEFAULT_BACKEND ""
#endif

namespace {

constexpr int kSkip = 77;

struct Options {
  std::string plugin;
  int reps = 20;
  int warmup = 3;
  int device = -1;
};

void usage(FILE* to) {
  std::fprintf(to,
               "usage: nbrcoll-copy-bench [--reps N] [--warmup N] [--device D] [PLUGIN]\n"
               "  PLUGIN  a device backend (libnbrcoll-cuda.so / libnbrcoll-hip.so); default: the one\n"
               "          built with this program, else those names on the loader's search path\n"
               "  --reps N     timed repetitions of each copy per size (default 20)\n"
               "  --warmup N   untimed repetitions first (default 3)\n"
               "  --device D   GPU ordinal (default: the runtime's current device)\n"
               "Exit 77 when there is no plugin or no GPU.\n");
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto number = [&](int& out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 0 || v > 1000000) return false;
      out = static_cast<int>(v);
      return true;
    };
    if (a == "--reps") {
      if (!number(o.reps) || o.reps == 0) return false;
    } else if (a == "--warmup") {
      if (!number(o.warmup)) return false;
    } else if (a == "--device") {
      if (!number(o.device)) return false;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else if (!a.empty() && a[0] != '-' && o.plugin.empty()) {
      o.plugin = a;
    } else {
      return false;
    }
  }
  return true;
}

int run(const nbrcoll_device_backend* g, const Options& o) {
  const size_t sizes[] = {size_t(64) << 10, size_t(256) << 10, size_t(1) << 20,  size_t(4) << 20,
                          size_t(16) << 20, size_t(64) << 20,  size_t(256) << 20};
  const size_t max_size = sizes[sizeof sizes / sizeof sizes[0] - 1];
  auto check = [&](int rc, const char* what) {
    if (rc != 0) std::fprintf(stderr, "nbrcoll-copy-bench: %s failed: %s\n", what, g->last_error());
    return rc == 0;
  };

  if (o.device >= 0 && !check(g->set_device(o.device), "set_device")) return 1;
  int dev = 0;
  if (!check(g->current_device(&dev), "current_device")) return 1;
  char bus[64] = "?";
  g->pci_bus_id(dev, bus, sizeof bus);

  void *src = nullptr, *dst = nullptr, *stream = nullptr;
  if (!check(g->device_malloc(&src, max_size), "device_malloc") ||
      !check(g->device_malloc(&dst, max_size), "device_malloc") || !check(g->stream_create(&stream), "stream_create")) {
    return 1;
  }
  std::vector<unsigned char> host(max_size);
  for (size_t i = 0; i < max_size; ++i) host[i] = static_cast<unsigned char>(i * 131 + (i >> 12));
  if (!check(g->copy_to_device_sync(src, host.data(), max_size), "copy_to_device_sync")) return 1;

  std::printf("# nbrcoll-copy-bench: backend %s, device %d (%s), %d reps after %d warm-up, times in us,\n", g->name,
              dev, bus, o.reps, o.warmup);
  std::printf("# GB/s = bytes copied / time (each byte is read and written once), ratio = runtime/kernel median\n");
  std::printf("%10s | %9s %9s %9s %8s | %9s %9s %9s %8s | %6s\n", "bytes", "kern_med", "kern_min", "kern_max",
              "kern_GBs", "rt_med", "rt_min", "rt_max", "rt_GBs", "ratio");

  for (size_t n : sizes) {
    nbrbench::CopyTiming t;
    const std::string error = nbrbench::time_copies(*g, dst, src, host.data(), n, stream, o.warmup, o.reps, t);
    if (!error.empty()) {
      std::fprintf(stderr, "nbrcoll-copy-bench: %s\n", error.c_str());
      return 1;
    }
    const nbrbench::Summary& k = t.kernel_us;
    const nbrbench::Summary& r = t.runtime_us;
    std::printf("%10zu | %9.1f %9.1f %9.1f %8.1f | %9.1f %9.1f %9.1f %8.1f | %6.2f\n", n, k.median, k.min, k.max,
                nbrbench::copy_gbps(n, k.median), r.median, r.min, r.max, nbrbench::copy_gbps(n, r.median), t.ratio());
    std::fflush(stdout);
  }
  g->stream_destroy(stream);
  g->device_free(src);
  g->device_free(dst);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    usage(stderr);
    return 2;
  }
  std::vector<std::string> candidates;
  if (!o.plugin.empty()) {
    candidates.push_back(o.plugin);
  } else {
    if (*NBRCOLL_COPY_BENCH_DEFAULT_BACKEND != '\0') candidates.push_back(NBRCOLL_COPY_BENCH_DEFAULT_BACKEND);
    candidates.push_back("libnbrcoll-cuda.so");
    candidates.push_back("libnbrcoll-hip.so");
  }
  nbrcoll_gpu::OpenedBackend b;
  std::string why;
  for (const std::string& path : candidates) {
    b = nbrcoll_gpu::open_backend(path);
    if (b.table != nullptr) break;
    why += "\n  " + b.error;
    if (b.loaded) {  // it loaded but is not a valid plugin: an error, not a skip
      std::fprintf(stderr, "nbrcoll-copy-bench: %s\n", b.error.c_str());
      return 1;
    }
  }
  if (b.table == nullptr) {
    std::printf("nbrcoll-copy-bench: skipped, no device backend plugin could be loaded:%s\n", why.c_str());
    return kSkip;
  }
  int count = 0;
  if (b.table->device_count(&count) != 0) {
    std::printf("nbrcoll-copy-bench: skipped, no GPU (%s)\n", b.table->last_error());
    return kSkip;
  }
  if (count == 0) {
    std::printf("nbrcoll-copy-bench: skipped, no GPU (%s backend: no device)\n", b.table->name);
    return kSkip;
  }
  return run(b.table, o);
}
