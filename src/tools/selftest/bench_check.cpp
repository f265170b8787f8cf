// bench: nbrcoll-bench on device buffers (its driver, bench/bench_main.h):
// native, linear, leader and auto side by side on a random sparse graph,
// every received byte validated. Emulated nodes come from
// NBRCOLL_RANKS_PER_NODE as for every nbrcoll run.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_main.h"
#include "bench/core/sizes.h"
#include "tools/selftest/context.h"

namespace selftest {

namespace {

// "at 4M, median us: native 812.0, linear 640.1, leader 402.3, auto 401.9 (auto 2.02x native)"
std::string largest_size(const std::vector<nbrbench::Row>& rows) {
  if (rows.empty()) return "no rows";
  const std::uint64_t size = rows.back().size_bytes;
  std::string text = "at " + nbrbench::format_size(size) + ", median us:";
  char item[96];
  for (const nbrbench::Row& r : rows) {
    if (r.size_bytes != size) continue;
    std::snprintf(item, sizeof item, " %s %.1f,", r.algo.c_str(), r.us.median);
    text += item;
  }
  text.pop_back();
  for (const nbrbench::Row& r : rows) {
    if (r.size_bytes == size && r.algo == "auto" && r.speedup) {
      std::snprintf(item, sizeof item, " (auto %.2fx native)", *r.speedup);
      text += item;
    }
  }
  return text;
}

Outcome bench(Context& c) {
  const bool quick = c.options.quick;
  std::vector<std::string> args = {"--pattern",     "rsg",
                                   "--density",     "0.6",
                                   "--sizes",       c.options.bench_sizes,
                                   "--algos",       "native,linear,leader,auto",
                                   "--iters",       quick ? "3" : "10",
                                   "--warmup",      quick ? "1" : "2",
                                   "--create-reps", quick ? "1" : "3",
                                   "--device",      c.plugin_path};
  const bool files = c.options.report != "none";
  if (files) {
    args.push_back("--csv");
    args.push_back(c.options.report + "-bench.csv");
  }
  std::ostringstream out;
  std::vector<nbrbench::Row> rows;
  const int rc = nbrbench::run_bench(args, out, &rows);
  c.report->block("nbrcoll-bench on device buffers", out.str());
  std::string cmd = "nbrcoll-bench";
  for (const std::string& a : args) cmd += " " + a;
  if (rc == 1) return fail("validation failed (stderr names the rank, slot and byte): " + cmd);
  if (rc != 0) return fail("nbrcoll-bench stopped (stderr says why): " + cmd);
  return pass("rsg density 0.6, " + std::to_string(c.size) + " ranks on " + std::to_string(c.world.nodes) +
              " node(s), device buffers, sizes " + c.options.bench_sizes + ", every byte validated; " +
              largest_size(rows) + (files ? "; rows in " + c.options.report + "-bench.csv" : ""));
}

}  // namespace

void check_bench(Context& c) {
  c.report->check("bench", c.runs("bench") ? bench(c) : skip("--skip bench"));
}

}  // namespace selftest
