// nbrcoll-selftest: run on a GPU node under the MPI
//   mpirun -np N nbrcoll-selftest --device cuda|hip|fake
// it checks and measures nbrcoll's device data path, one line per check:
// the backend plugin and how it classifies memory, the copy kernel (bytes
// and bandwidth against the runtime's own copy), IPC between ranks on one GPU
// and between GPUs, memory IPC cannot export, every neighborhood collective
// nbrcoll takes with device buffers under every variant against the MPI on
// host copies, and nbrcoll-bench on device buffers. Exit status 0 only if no
// check failed; 2 for bad usage. Linked with nbrcoll_static, so the MPI
// calls go through nbrcoll without LD_PRELOAD (as nbrcoll-bench).
#include <mpi.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/nbrcoll_hooks.h"
#include "nbrcoll/nbrcoll.h"
#include "tests/device_checks/copy_check.h"
#include "tools/selftest/context.h"
#include "transport/device/open_backend.h"

using namespace selftest;

namespace {

std::string exe_dir() {
  char path[PATH_MAX] = {};
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  std::string p(path, n > 0 ? static_cast<std::size_t>(n) : 0);
  const std::size_t slash = p.rfind('/');
  return slash == std::string::npos ? "." : p.substr(0, slash);
}

// The file this process mapped for the shared library whose name starts
// with `stem` (/proc/self/maps): where the MPI really came from.
std::string mapped_library(const std::string& stem) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const std::size_t path = line.find('/');
    if (path == std::string::npos) continue;
    std::string file = line.substr(path);
    const std::size_t base = file.rfind('/');
    if (file.compare(base + 1, stem.size(), stem) == 0) return file;
  }
  return "";
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len > 0 ? len : 0));
  return s.substr(0, s.find_first_of("\n,"));
}

std::string utc_now() {
  char text[64] = {};
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

// The plugin loads, its table is whole, and this rank has a device: then the
// rank takes device rank % count (as nbrcoll-bench and the tests do).
Outcome load_plugin(Context& c, const nbrcoll_gpu::OpenedBackend& opened) {
  if (opened.table == nullptr) return fail(opened.error);
  c.g = opened.table;
  c.plugin_handle = opened.handle;
  // ABI-compatible but incomplete tables would crash later checks.
  const std::string missing = nbrcoll_check::missing_functions(*c.g);
  if (!missing.empty()) return fail(c.plugin_path + ": the table lacks " + missing);
  if (c.g->device_count(&c.devices) != 0) return fail(std::string("device_count: ") + c.g->last_error());
  if (c.devices <= 0) return fail("no device");
  if (c.g->set_device(c.rank % c.devices) != 0) return fail(std::string("set_device: ") + c.g->last_error());
  if (c.g->current_device(&c.device) != 0) return fail(std::string("current_device: ") + c.g->last_error());
  char bus[64] = "?";
  if (c.g->pci_bus_id(c.device, bus, sizeof bus) != 0) return fail(std::string("pci_bus_id: ") + c.g->last_error());
  c.bus_id = bus;
  return pass(std::string(c.g->name) + " plugin " + c.plugin_path + " (ABI " +
              std::to_string(NBRCOLL_DEVICE_ABI_VERSION) + ", every function present), " + std::to_string(c.devices) +
              " device(s) per rank");
}

// "0000:01:00.0 NVIDIA H100 80GB HBM3: ranks 0,1" per device, from every rank's own.
std::string device_list(const Context& c) {
  std::string mine = c.bus_id;
  if (c.extras.device_name) mine += " " + c.extras.device_name(c.device);
  const std::vector<std::string> all = gather_strings(mine);
  std::map<std::string, std::string> ranks;
  for (std::size_t r = 0; r < all.size(); ++r) ranks[all[r]] += (ranks[all[r]].empty() ? "" : ",") + std::to_string(r);
  std::string out;
  for (const auto& [dev, who] : ranks)
    out.append(out.empty() ? "" : "; ").append(dev).append(" (ranks ").append(who).append(")");
  return out;
}

void write_header(Context& c) {
  Report& r = *c.report;
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  r.header(std::string("nbrcoll-selftest ") + NBRCOLL_VERSION_STRING + ", " + utc_now() + ", host " + host);
  const char* rpn = std::getenv("NBRCOLL_RANKS_PER_NODE");
  r.header(std::to_string(c.size) + " ranks on " + std::to_string(c.world.nodes) + " node(s) (" +
           (c.world.emulated ? std::string("emulated: NBRCOLL_RANKS_PER_NODE=") + rpn : std::string("real")) + ")");
  const std::string devices = device_list(c);
  const std::string mpi = "MPI: " + mpi_library_version() + " (" + mapped_library("libmpi.so") + ")";
  if (c.g == nullptr) {
    r.header("device: " + c.options.device + ", the plugin did not load on rank 0");
    r.header(mpi);
    return;
  }
  r.header("device: " + c.options.device + ", " + devices +
           (c.extras.versions.empty() ? "" : "; " + c.extras.versions + " (" + c.extras.library + ")"));
  r.header(mpi + "; GPU-aware: " +
           (c.gpu_aware ? "yes (nbrcoll hands device buffers to it)"
                        : "no (device fragments that go by MPI are staged through pinned host memory)") +
           "; IPC inside a node: " + (c.ipc ? "on" : "off (NBRCOLL_DEVICE_IPC=0)"));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  Options o;
  std::string usage_error;
  try {
    o = parse_options(args);
  } catch (const std::invalid_argument& e) {
    usage_error = e.what();
  }
  // --version and --help answer without starting MPI (no mpirun needed).
  if (usage_error.empty() && (o.version || o.help)) {
    if (o.version) std::printf("nbrcoll-selftest (nbrcoll) %s\n", NBRCOLL_VERSION_STRING);
    if (o.help) std::fputs(usage(), stdout);
    return 0;
  }
  Context c;
  if (usage_error.empty()) {
    c.plugin_path = find_plugin(o.device, o.plugin, exe_dir());
    // nbrcoll reads its configuration at MPI_Init: it must load this plugin.
    setenv("NBRCOLL_DEVICE_BACKEND", c.plugin_path.c_str(), 1);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  if (!usage_error.empty()) {
    if (c.rank == 0) std::fprintf(stderr, "nbrcoll-selftest: %s\n%s", usage_error.c_str(), usage());
    MPI_Finalize();
    return 2;
  }
  c.options = o;
  c.world = nbrbench::describe_world();
  Report report(std::to_string(c.size) + "," + std::to_string(c.world.nodes) + "," + o.device);
  c.report = &report;

  const nbrcoll_gpu::OpenedBackend opened = nbrcoll_gpu::open_backend(c.plugin_path);
  const Outcome load = load_plugin(c, opened);
  if (load.status == Status::kPass) {
    c.extras = find_runtime_extras(*c.g, c.plugin_handle);
    c.gpu_aware = nbrbench::mpi_takes_device_memory(*c.g);
    c.ipc = nbrbench::device_ipc_enabled();
  }
  write_header(c);
  const Status loaded = report.check("plugin.load", load);
  if (loaded == Status::kPass) {
    check_memory_kinds(c);
    check_kernel(c);
    check_bandwidth(c);
    check_ipc(c);
    check_unexportable(c);
    check_collectives(c);
    check_bench(c);
  }
  if (c.rank == 0) {
    std::printf("summary: %s\n", report.summary().c_str());
    if (o.report != "none") {
      const std::string error = report.write(o.report);
      if (!error.empty()) {
        std::fprintf(stderr, "nbrcoll-selftest: %s\n", error.c_str());
      } else {
        std::printf("report: %s.md, %s.csv\n", o.report.c_str(), o.report.c_str());
      }
    }
    std::fflush(stdout);
  }
  const int rc = report.failed() == 0 && loaded == Status::kPass ? 0 : 1;
  MPI_Finalize();
  return rc;
}
