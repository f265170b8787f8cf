#include "bench/model/model_options.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "bench/core/matrix_gen.h"
#include "bench/core/sizes.h"
#include "bench/core/cli_numbers.h"

namespace nbrmodel {

using nbrbench::parse_integer;
using nbrbench::parse_positive;

namespace {

std::vector<int> node_counts(const std::string& v) {
  std::vector<int> out;
  std::stringstream ss(v);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(static_cast<int>(parse_integer("--nodes", item, 1, 1 << 20)));
  if (out.empty()) throw std::invalid_argument("--nodes: expected a comma list of node counts, got '" + v + "'");
  return out;
}

void check(const ModelOptions& o) {
  if (o.pattern.empty()) throw std::invalid_argument("--pattern is required (rsg, moore or matrix)");
  if (o.pattern == "rsg") {
    if (o.density.has_value() == o.degree.has_value())
      throw std::invalid_argument("--pattern rsg needs one of --density D or --degree K");
    if (o.density && *o.density > 1) throw std::invalid_argument("--density: expected a number in (0, 1]");
  } else if (o.pattern == "matrix") {
    if (o.matrix.empty()) throw std::invalid_argument("--pattern matrix needs a matrix: --matrix FILE.mtx");
  } else if (o.pattern != "moore") {
    throw std::invalid_argument("--pattern: expected rsg, moore or matrix, got '" + o.pattern + "'");
  }
  if (o.pattern != "rsg" && (o.density || o.degree))
    throw std::invalid_argument("--density and --degree belong to --pattern rsg");
  if (o.pattern != "matrix" && !o.matrix.empty()) throw std::invalid_argument("--matrix belongs to --pattern matrix");
  const long long most = static_cast<long long>(*std::max_element(o.nodes.begin(), o.nodes.end())) * o.ranks_per_node;
  if (most > (1 << 20)) throw std::invalid_argument("more than 2^20 ranks (--nodes x --ranks-per-node)");
}

}  // namespace

const char* model_usage() {
  return "usage: nbrcoll-model --pattern PATTERN [options]\n"
         "Predicts one neighbourhood collective's time per plan with nbrcoll's cost model (algos/cost_model),\n"
         "for a node model at several node counts, and which plan `auto` would take. No MPI needed.\n"
         "patterns (ranks numbered node by node):\n"
         "  --pattern rsg --density D | --degree K [--seed S]\n"
         "                      Erdos-Renyi: edge i->j with probability D, or D = K / (ranks - 1) at each node\n"
         "                      count (K expected neighbours per rank; keeps large runs sparse)\n"
         "  --pattern moore [--dims d] [--radius r]   periodic Moore neighbourhood (halo), default d=2 r=1\n"
         "  --pattern matrix [--matrix] FILE.mtx      rows in contiguous blocks over the ranks; rank i receives\n"
         "                      from the ranks owning columns of its rows (as nbrcoll-bench --pattern spmm);\n"
         "                      also gen:delaunay:N[:SEED], gen:ccc:D, gen:debruijn:D\n"
         "options:\n"
         "  --node MODEL        node model: frontier, mi250, mi300x, flat (default frontier)\n"
         "  --machine M         a built-in machine (frontier, mi250, mi300x, dgx-h100, emulated, ...) or a\n"
         "                      machine file (nbrcoll-calibrate's format); default: the built-in named like --node\n"
         "  --nodes LIST        node counts (default 16,64,256,1024)\n"
         "  --ranks-per-node K  ranks per node, rank i of a node on device i mod 8 (default 8)\n"
         "  --op OP             allgather (variants linear, leader, aggregated) or alltoall (linear, aggregated)\n"
         "  --sizes SPEC        bytes per block: 1K,16K,256K,4M (default) | 1K:4M (powers of two)\n"
         "  --csv FILE          also write the rows as CSV\n"
         "  --warn-edges N      warn on stderr when a graph has more than N edges (default 20000000)\n"
         "  --help, --version\n"
         "time = max over ranks of predict_rank_us (the library's rule, ranks_on_node = ranks per node);\n"
         "auto = the cost table's choice at the size; net = inter-node messages / bytes summed over ranks.\n"
         "Exit status: 0 ok, 1 an input could not be read, 2 bad usage.\n";
}

ModelOptions parse_model_options(const std::vector<std::string>& args) {
  ModelOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      o.help = true;
    } else if (a == "--version") {
      o.version = true;
    } else if (a == "--node") {
      o.node = value();
    } else if (a == "--machine") {
      o.machine = value();
    } else if (a == "--nodes") {
      o.nodes = node_counts(value());
    } else if (a == "--ranks-per-node") {
      o.ranks_per_node = static_cast<int>(parse_integer(a, value(), 1, 4096));
    } else if (a == "--pattern") {
      o.pattern = value();
    } else if (a == "--density") {
      o.density = parse_positive(a, value());
    } else if (a == "--degree") {
      o.degree = parse_positive(a, value());
    } else if (a == "--seed") {
      o.seed = static_cast<std::uint64_t>(parse_integer(a, value(), 0, INT64_MAX));
    } else if (a == "--dims") {
      o.dims = static_cast<int>(parse_integer(a, value(), 1, 6));
    } else if (a == "--radius") {
      o.radius = static_cast<int>(parse_integer(a, value(), 1, 8));
    } else if (a == "--matrix") {
      o.matrix = value();
    } else if (a == "--op") {
      const std::string& v = value();
      if (v != "allgather" && v != "alltoall")
        throw std::invalid_argument("--op: expected allgather or alltoall, got '" + v + "'");
      o.alltoall = v == "alltoall";
    } else if (a == "--sizes") {
      o.sizes = nbrbench::parse_sizes(value());
    } else if (a == "--csv") {
      o.csv = value();
    } else if (a == "--warn-edges") {
      o.warn_edges = static_cast<std::uint64_t>(parse_integer(a, value(), 0, INT64_MAX));
    } else if (a.rfind("-", 0) != 0 && o.pattern == "matrix" && o.matrix.empty()) {
      o.matrix = a;  // --pattern matrix FILE.mtx
    } else {
      throw std::invalid_argument("unknown argument '" + a + "' (see --help)");
    }
  }
  if (!o.help && !o.version) check(o);
  return o;
}

std::string model_params(const ModelOptions& o) {
  std::ostringstream p;
  if (o.pattern == "rsg") {
    if (o.degree)
      p << "degree=" << *o.degree;
    else
      p << "density=" << *o.density;
    p << ";seed=" << o.seed;
  } else if (o.pattern == "moore") {
    p << "d=" << o.dims << ";r=" << o.radius;
  } else {
    p << "matrix=" << nbrbench::matrix_name(o.matrix);
  }
  return p.str();
}

double rsg_density(const ModelOptions& o, int ranks) {
  if (o.density) return *o.density;
  if (ranks < 2) return 0;
  return std::min(1.0, o.degree.value_or(0) / (ranks - 1));
}

}  // namespace nbrmodel
