#include "bench/core/options.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "bench/core/cli_numbers.h"
#include "bench/core/sizes.h"

namespace nbrbench {

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

const char* usage() {
  return "usage: mpirun -np P nbrcoll-bench --pattern PATTERN [options]\n"
         "patterns:\n"
         "  --pattern rsg   --density D [--seed S]   Erdos-Renyi graph, edge i->j with probability D\n"
         "  --pattern moore --dims d --radius r      periodic Moore neighbourhood on an MPI_Dims_create grid\n"
         "  --pattern spmm  --matrix M [--cols k[,k..]]  row-block SpMM, B gathered with neighbor_allgatherv;\n"
         "                  M = file.mtx | gen:ccc:D | gen:debruijn:D | gen:delaunay:N[:SEED]; a new graph per\n"
         "                  call (creation timed), or with --reuse-graph one per way and k (auto timed once settled)\n"
         "  --pattern file  --graph FILE             edge list, 'src dst' per line, # comments\n"
         "options:\n"
         "  --sizes SPEC      bytes per block: 4096 | 1K | 1K:64M (powers of two) | comma list (default 1K:64M)\n"
         "  --op OP           allgather | allgatherv | alltoall | alltoallv (default allgather; rsg, moore, file)\n"
         "  --nonblocking     MPI_Ineighbor_* + MPI_Wait, timed together\n"
         "  --persistent      MPI_Neighbor_*_init once per size and algorithm, MPI_Start + MPI_Wait timed (MPI >= 4)\n"
         "  --compute T       with --nonblocking / --persistent: also time start, T of computation, wait, and\n"
         "                    report the share of communication hidden (OSU's overlap); T: microseconds, or\n"
         "                    'native' for as long as the MPI's own exchange of each size (needs native in --algos)\n"
         "  --compute-kind K  busy (default: arithmetic, the core kept) | idle (a sleep, the core free)\n"
         "  --thread-multiple MPI_Init_thread with MPI_THREAD_MULTIPLE (as mpi4py and DOLFINx run); one thread calls\n"
         "  --algos LIST      native,linear,leader,aggregated,auto (default native,linear,leader)\n"
         "  --warmup N        untimed calls per size and algorithm (default 2)\n"
         "  --iters N         timed calls per size and algorithm (default 10)\n"
         "  --iters-below SIZE:N  N timed calls instead for sizes below SIZE (rsg, moore, file), e.g. 64K:15\n"
         "  --create-reps N   repetitions of the graph-creation timing (default 5)\n"
         "  --validate / --no-validate   check every received byte and guard (default on)\n"
         "  --csv FILE        write results as CSV; --csv-append FILE appends to it\n"
         "  --device PLUGIN   device buffers, allocated through a device backend plugin\n"
         "                    (libnbrcoll-cuda.so, libnbrcoll-hip.so); 'native' becomes the MPI on device\n"
         "                    buffers if it is GPU-aware, else staged through host copies (timed)\n"
         "  --inject-fault    (tests) flip one received byte on the last rank, to see validation fail\n"
         "  --version         nbrcoll's version (answers without starting MPI)\n";
}

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  bool sizes_given = false;
  bool op_given = false;
  std::optional<ComputeKind> compute_kind;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h")
      o.help = true;
    else if (a == "--pattern")
      o.pattern = value();
    else if (a == "--density") {
      const std::string& v = value();
      std::size_t used = 0;
      try {
        o.density = std::stod(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != v.size() || !(o.density >= 0.0 && o.density <= 1.0))
        throw std::invalid_argument("--density: expected a number in [0, 1], got '" + v + "'");
    } else if (a == "--seed")
      o.seed = static_cast<std::uint64_t>(parse_integer(a, value(), 0, INT64_MAX));
    else if (a == "--dims")
      o.dims = static_cast<int>(parse_integer(a, value(), 1, 8));
    else if (a == "--radius")
      o.radius = static_cast<int>(parse_integer(a, value(), 1, 64));
    else if (a == "--matrix")
      o.matrix = value();
    else if (a == "--reuse-graph")
      o.reuse_graph = true;
    else if (a == "--cols") {
      o.cols.clear();
      for (const auto& c : split_list(value())) o.cols.push_back(static_cast<int>(parse_integer(a, c, 1, 1 << 20)));
      if (o.cols.empty()) throw std::invalid_argument("--cols: empty list");
      std::sort(o.cols.begin(), o.cols.end());
    } else if (a == "--graph")
      o.graph = value();
    else if (a == "--sizes") {
      o.sizes = parse_sizes(value());
      sizes_given = true;
    } else if (a == "--algos") {
      o.algos = split_list(value());
      if (o.algos.empty()) throw std::invalid_argument("--algos: empty list");
      for (const auto& name : o.algos)
        if (name != "native" && name != "linear" && name != "leader" && name != "aggregated" && name != "auto")
          throw std::invalid_argument("--algos: unknown algorithm '" + name + "'");
    } else if (a == "--warmup")
      o.warmup = static_cast<int>(parse_integer(a, value(), 0, 1000000));
    else if (a == "--iters")
      o.iters = static_cast<int>(parse_integer(a, value(), 1, 1000000));
    else if (a == "--iters-below") {
      const std::string v = value();
      const std::size_t colon = v.find(':');
      if (colon == std::string::npos) throw std::invalid_argument("--iters-below: expected SIZE:N, got '" + v + "'");
      o.iters_below = parse_size(v.substr(0, colon));
      o.small_iters = static_cast<int>(parse_integer(a, v.substr(colon + 1), 1, 1000000));
    } else if (a == "--create-reps")
      o.create_reps = static_cast<int>(parse_integer(a, value(), 0, 10000));
    else if (a == "--validate")
      o.validate = true;
    else if (a == "--no-validate")
      o.validate = false;
    else if (a == "--inject-fault")
      o.inject_fault = true;
    else if (a == "--thread-multiple")
      o.thread_multiple = true;
    else if (a == "--op") {
      const auto op = parse_op(value());
      if (!op)
        throw std::invalid_argument("--op: expected allgather, allgatherv, alltoall or alltoallv, got '" + args[i] +
                                    "'");
      o.op = *op;
      op_given = true;
    } else if (a == "--nonblocking" || a == "--persistent") {
      const Mode m = a == "--nonblocking" ? Mode::kNonblocking : Mode::kPersistent;
      if (o.mode != Mode::kBlocking && o.mode != m)
        throw std::invalid_argument("--nonblocking and --persistent: choose one");
      o.mode = m;
    } else if (a == "--compute") {
      const std::string& v = value();
      ComputeSpec c = o.compute.value_or(ComputeSpec{});
      c.as_native = v == "native";
      if (!c.as_native) c.us = static_cast<double>(parse_integer(a, v, 0, 100000000));
      o.compute = c;
    } else if (a == "--compute-kind") {
      const std::string& v = value();
      if (v != "busy" && v != "idle")
        throw std::invalid_argument("--compute-kind: expected busy or idle, got '" + v + "'");
      compute_kind = v == "busy" ? ComputeKind::kBusy : ComputeKind::kIdle;
    } else if (a == "--device")
      o.device = value();
    else if (a == "--csv")
      o.csv = value();
    else if (a == "--csv-append") {
      o.csv = value();
      o.csv_append = true;
    } else
      throw std::invalid_argument("unknown option '" + a + "'");
  }
  if (o.help) return o;
  if (compute_kind) {
    if (!o.compute) throw std::invalid_argument("--compute-kind: only with --compute");
    o.compute->kind = *compute_kind;
  }
  if (o.compute) {
    if (o.mode == Mode::kBlocking) throw std::invalid_argument("--compute: only with --nonblocking or --persistent");
    if (o.compute->as_native && std::find(o.algos.begin(), o.algos.end(), "native") == o.algos.end())
      throw std::invalid_argument("--compute native: needs native in --algos");
  }
  if (!o.device.empty() && (o.op != Op::kAllgather || o.mode != Mode::kBlocking))
    throw std::invalid_argument("--device: only with --op allgather, blocking");
  if (!sizes_given) o.sizes = parse_sizes("1K:64M");
  if (o.pattern == "spmm") {
    if (o.matrix.empty()) throw std::invalid_argument("--pattern spmm needs --matrix");
    if (!o.device.empty()) throw std::invalid_argument("--device: not for --pattern spmm (host buffers only)");
    if (op_given || o.mode != Mode::kBlocking)
      throw std::invalid_argument(
          "--op, --nonblocking, --persistent: not for --pattern spmm (blocking allgatherv only)");
    if (o.iters_below > 0) throw std::invalid_argument("--iters-below: not for --pattern spmm (no block sizes)");
  } else if (o.pattern == "file") {
    if (o.graph.empty()) throw std::invalid_argument("--pattern file needs --graph");
  } else if (o.pattern != "rsg" && o.pattern != "moore") {
    throw std::invalid_argument(o.pattern.empty() ? "--pattern is required" : "unknown pattern '" + o.pattern + "'");
  }
  return o;
}

std::string params_string(const Options& o) {
  std::ostringstream s;
  if (o.pattern == "rsg")
    s << "density=" << o.density << ";seed=" << o.seed;
  else if (o.pattern == "moore")
    s << "d=" << o.dims << ";r=" << o.radius;
  else if (o.pattern == "file")
    s << "graph=" << o.graph.substr(o.graph.find_last_of('/') + 1);
  // spmm: the matrix and column count are added per row by the SpMM driver.
  return s.str();
}

}  // namespace nbrbench
