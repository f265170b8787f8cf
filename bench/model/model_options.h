// Command line of nbrcoll-model. Pure parsing: no MPI, unit-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nbrmodel {

struct ModelOptions {
  std::string node = "frontier";  // node model: frontier | mi250 | mi300x | flat
  std::string machine;            // built-in machine or a machine file; empty: the built-in named like `node`
  std::vector<int> nodes{16, 64, 256, 1024};
  int ranks_per_node = 8;
  std::string pattern;            // rsg | moore | matrix
  std::optional<double> density;  // rsg: probability of each ordered pair
  std::optional<double> degree;   // rsg: expected out-neighbours per rank (density = degree / (ranks - 1))
  std::uint64_t seed = 1;         // rsg
  int dims = 2;                   // moore
  int radius = 1;                 // moore
  std::string matrix;             // matrix: a Matrix Market file or gen:...
  bool alltoall = false;          // --op alltoall (else allgather)
  std::vector<std::uint64_t> sizes{1024, 16384, 262144, 4194304};
  std::string csv;
  std::uint64_t warn_edges = 20'000'000;  // warn when a graph has more edges
  bool help = false;
  bool version = false;
};

// Throws std::invalid_argument with a one-line message for the user.
ModelOptions parse_model_options(const std::vector<std::string>& args);
const char* model_usage();

// "degree=16;seed=1", "density=0.01;seed=1", "d=2;r=1", "matrix=NAME": the
// CSV's params column (no commas).
std::string model_params(const ModelOptions& o);

// The RSG density at `ranks` ranks (from --density or --degree), at most 1.
double rsg_density(const ModelOptions& o, int ranks);

}  // namespace nbrmodel
