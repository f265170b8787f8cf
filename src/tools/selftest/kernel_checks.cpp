// kernel.exact: the copy kernel byte-exact on odd sizes and offsets, guard
// bytes around every copy untouched, on every rank (the sweeps of
// tests/device, shared). kernel.bandwidth: the kernel against the runtime's
// own device-to-device copy on the same buffers (bench/device's timing,
// shared), on rank 0 alone so that no other rank's copies share the GPU.
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bench/core/sizes.h"
#include "bench/device/copy_timing.h"
#include "tests/device_checks/copy_check.h"
#include "tools/selftest/context.h"

namespace selftest {

namespace {

Outcome exact(Context& c) {
  void* stream = nullptr;
  if (c.g->stream_create(&stream) != 0) return fail(std::string("stream_create: ") + c.g->last_error());
  const nbrcoll_check::SweepResult small = nbrcoll_check::sweep_small_copies(c.g, stream);
  nbrcoll_check::SweepResult large;
  if (small.first_failure.empty() && !c.options.quick) large = nbrcoll_check::sweep_large_copies(c.g, stream);
  c.g->stream_destroy(stream);
  if (!small.first_failure.empty()) return fail("small copies: " + small.first_failure);
  if (!large.first_failure.empty()) return fail("large copies: " + large.first_failure);
  nbrcoll_check::CopyCheck on_default(c.g, 100003, nullptr);
  for (const auto& [size, doff, soff] :
       {std::tuple<std::size_t, std::size_t, std::size_t>{100003, 3, 5}, {100000, 0, 0}}) {
    const std::string error = on_default.check(size, doff, soff);
    if (!error.empty()) return fail("on the default stream: " + error);
  }
  std::string detail = std::to_string(small.copies) + " copies of 0..4097 B at every dst/src offset 0..17";
  if (large.copies > 0) detail += ", " + std::to_string(large.copies) + " of 64 KiB..33 MiB at 12 offset mixes";
  return pass(detail + ", 2 on the default stream: byte-exact, guard bytes intact (every rank)");
}

// "0.98 at 256M (kernel 1450.2 GB/s)"
std::string ratio_text(const nbrbench::CopyTiming& t) {
  char text[128];
  std::snprintf(text, sizeof text, "%.2f at %s (kernel %.1f GB/s)", t.ratio(), nbrbench::format_size(t.bytes).c_str(),
                nbrbench::copy_gbps(t.bytes, t.kernel_us.median));
  return text;
}

std::string runtime_copy_name(const nbrcoll_device_backend& g) {
  const std::string name = g.name;
  return name == "cuda" ? "cudaMemcpyAsync" : name == "hip" ? "hipMemcpyAsync" : name + " runtime copy";
}

Outcome bandwidth(Context& c) {
  if (c.rank != 0) return skip("rank 0 measures");
  const std::vector<std::uint64_t>& sizes = c.options.copy_sizes;
  const std::size_t max = sizes.empty() ? 0 : static_cast<std::size_t>(sizes.back());
  const int warmup = c.options.quick ? 1 : 3;
  const int reps = c.options.quick ? 3 : 20;
  nbrcoll_check::DeviceAlloc src(c.g, max), dst(c.g, max);
  if (src.p == nullptr || dst.p == nullptr) return fail(src.p == nullptr ? src.error : dst.error);
  std::vector<unsigned char> host(max);
  for (std::size_t i = 0; i < max; ++i) host[i] = static_cast<unsigned char>(i * 131 + (i >> 12));
  if (c.g->copy_to_device_sync(src.p, host.data(), max) != 0)
    return fail(std::string("copy_to_device_sync: ") + c.g->last_error());
  void* stream = nullptr;
  if (c.g->stream_create(&stream) != 0) return fail(std::string("stream_create: ") + c.g->last_error());
  const std::string rt = runtime_copy_name(*c.g);
  std::ostringstream table;
  table << "copy kernel against " << rt << " device to device, same buffers, rank 0 (device " << c.bus_id << "), "
        << reps << " reps after " << warmup << " warm-up; GB/s = bytes / time; ratio = " << rt
        << " median / kernel median (above 1: the kernel is faster)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%10s | %10s %9s | %10s %9s | %6s\n", "bytes", "kernel_us", "GB/s", "runtime_us",
                "GB/s", "ratio");
  table << line;
  std::vector<nbrbench::CopyTiming> timings;
  for (const std::uint64_t size : sizes) {
    nbrbench::CopyTiming t;
    const std::string error =
        nbrbench::time_copies(*c.g, dst.p, src.p, host.data(), static_cast<std::size_t>(size), stream, warmup, reps, t);
    if (!error.empty()) {
      c.g->stream_destroy(stream);
      return fail(nbrbench::format_size(size) + ": " + error);
    }
    timings.push_back(t);
    const double kg = nbrbench::copy_gbps(t.bytes, t.kernel_us.median);
    const double rg = nbrbench::copy_gbps(t.bytes, t.runtime_us.median);
    std::snprintf(line, sizeof line, "%10zu | %10.1f %9.1f | %10.1f %9.1f | %6.2f\n", t.bytes, t.kernel_us.median, kg,
                  t.runtime_us.median, rg, t.ratio());
    table << line;
    c.report->measure({"kernel.bandwidth", size, "kernel_us", t.kernel_us.median});
    c.report->measure({"kernel.bandwidth", size, "runtime_us", t.runtime_us.median});
    c.report->measure({"kernel.bandwidth", size, "kernel_GBps", kg});
    c.report->measure({"kernel.bandwidth", size, "runtime_GBps", rg});
    c.report->measure({"kernel.bandwidth", size, "ratio", t.ratio()});
  }
  c.g->stream_destroy(stream);
  c.report->block("Copy kernel bandwidth", table.str());
  if (timings.empty()) return skip("no sizes");
  std::ostringstream d;
  d << "byte-exact at every size; time ratio " << rt << "/kernel (above 1: kernel faster)";
  const std::size_t picks[] = {0, timings.size() / 2, timings.size() - 1};
  std::size_t last = timings.size();
  for (const std::size_t i : picks) {
    if (i == last) continue;
    last = i;
    d << (i == 0 ? " " : ", ") << ratio_text(timings[i]);
  }
  return pass(d.str());
}

}  // namespace

void check_kernel(Context& c) {
  c.report->check("kernel.exact", c.runs("kernel") ? exact(c) : skip("--skip kernel"));
}

void check_bandwidth(Context& c) {
  c.report->check("kernel.bandwidth", c.runs("bandwidth") ? bandwidth(c) : skip("--skip bandwidth"));
}

}  // namespace selftest
