#include "tools/selftest/options.h"

#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

#include "bench/core/sizes.h"  // the benchmark's size lists: 1K:256M, 1K,64K

namespace selftest {

const std::vector<std::string>& check_groups() {
  static const std::vector<std::string> groups = {"kernel", "bandwidth", "ipc", "memory", "collectives", "bench"};
  return groups;
}

namespace {

// "bench,ipc": each a known check group.
void add_skips(const std::string& list, std::set<std::string>& skip) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    if (!name.empty()) {
      const auto& g = check_groups();
      if (std::find(g.begin(), g.end(), name) == g.end())
        throw std::invalid_argument("--skip: unknown check group '" + name + "'");
      skip.insert(name);
    }
    start = end + 1;
  }
}

}  // namespace

const char* usage() {
  return "usage: mpirun -np N nbrcoll-selftest --device cuda|hip|fake [options]\n"
         "Checks and measures nbrcoll's device data path on this node, one line per check;\n"
         "exit status 0 only if no check failed.\n"
         "  --device D        the GPU runtime: cuda, hip, or fake (the CPU stand-in of the tests)\n"
         "  --plugin PATH     the device backend plugin (default: libnbrcoll-D.so in ../lib)\n"
         "  --report PREFIX   write PREFIX.md, PREFIX.csv, PREFIX-bench.csv (default nbrcoll-selftest;\n"
         "                    'none': no files)\n"
         "  --copy-sizes SPEC sizes of the kernel bandwidth check (default 1K:256M; quick 1K:1M)\n"
         "  --bench-sizes SPEC nbrcoll-bench --sizes on device buffers (default 1K:4M; quick 1K,64K)\n"
         "  --skip LIST       leave out check groups: kernel,bandwidth,ipc,memory,collectives,bench\n"
         "  --quick           short run (CI): fewer sizes and repetitions\n"
         "  --version, --help\n"
         "Emulated nodes: mpirun -x NBRCOLL_RANKS_PER_NODE=K. Every rank must get the same options.\n";
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  std::string copy_sizes;
  // Options without a value, and options with one (the next argument).
  const std::map<std::string, std::function<void()>> flags = {{"--help", [&] { o.help = true; }},
                                                              {"-h", [&] { o.help = true; }},
                                                              {"--version", [&] { o.version = true; }},
                                                              {"--quick", [&] { o.quick = true; }}};
  const std::map<std::string, std::function<void(const std::string&)>> valued = {
      {"--device",
       [&](const std::string& v) {
         if (v != "cuda" && v != "hip" && v != "fake")
           throw std::invalid_argument("--device: expected cuda, hip or fake, got '" + v + "'");
         o.device = v;
       }},
      {"--plugin", [&](const std::string& v) { o.plugin = v; }},
      {"--report", [&](const std::string& v) { o.report = v; }},
      {"--copy-sizes", [&](const std::string& v) { copy_sizes = v; }},
      {"--bench-sizes", [&](const std::string& v) { o.bench_sizes = v; }},
      {"--skip", [&](const std::string& v) { add_skips(v, o.skip); }}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (const auto f = flags.find(args[i]); f != flags.end()) {
      f->second();
    } else if (const auto v = valued.find(args[i]); v != valued.end()) {
      if (i + 1 >= args.size()) throw std::invalid_argument(args[i] + " needs a value");
      v->second(args[++i]);
    } else {
      throw std::invalid_argument("unknown option '" + args[i] + "'");
    }
  }
  if (o.help || o.version) return o;
  if (o.device.empty()) throw std::invalid_argument("--device is required (cuda, hip or fake)");
  const std::string sizes = !copy_sizes.empty() ? copy_sizes : o.quick ? "1K:1M" : "1K:256M";
  o.copy_sizes = nbrbench::parse_sizes(sizes);
  nbrbench::parse_sizes(o.bench_sizes.empty() ? "1K" : o.bench_sizes);  // an error now, not after the checks
  if (o.bench_sizes.empty()) o.bench_sizes = o.quick ? "1K,64K" : "1K:4M";
  return o;
}

std::string find_plugin(const std::string& device, const std::string& explicit_path, const std::string& exe_dir) {
  if (!explicit_path.empty()) return explicit_path;
  std::string file = device == "fake" ? "libnbrcoll-fake-device.so" : "libnbrcoll-" + device + ".so";
  for (const std::string& dir : {exe_dir + "/../lib", exe_dir + "/../lib/fake_gpu"}) {
    std::string path = dir;
    path.append("/").append(file);
    if (access(path.c_str(), R_OK) == 0) return path;
  }
  return file;
}

}  // namespace selftest
