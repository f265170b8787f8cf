// nbrcoll-stencil: the halo exchange of a 2-D or 3-D stencil code, timed
// with nbrcoll's algorithms side by side. Four exchanges of one array of
// doubles with a halo:
//   cart-w   a Cartesian communicator (faces), MPI_Neighbor_alltoallw on
//            subarray types of the array itself
//   cart-v   the same neighbours, faces packed into a buffer, then
//            MPI_Neighbor_alltoallv, then unpacked (all three timed)
//   graph-w  a distributed graph of every neighbour (faces, edges and
//            corners: 8 or 26; --graph-stencil faces for 4 or 6),
//            MPI_Neighbor_alltoallw on subarray types
//   graph-v  the graph's neighbours, packed, MPI_Neighbor_alltoallv
// For each local size n (cells per dimension), each round times every
// algorithm once in a shuffled order (nbrcoll-bench's harness), and after
// every call each rank checks its whole array (interior and halo) against
// the closed form (halo.h). Linked against nbrcoll_static; the algorithm
// of each call is chosen with nbrcoll's override. README.md has the rest.
#include <mpi.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/harness.h"
#include "bench/nbrcoll_hooks.h"
#include "bench/stencil/halo.h"
#include "bench/stencil/stencil_report.h"
#include "bench/world.h"

namespace {

using nbrstencil::Box;
using nbrstencil::Grid;
using nbrstencil::Index;

struct Options {
  int dims = 2;
  std::vector<int> sizes;  // n, cells per dimension
  int halo = 1;
  std::vector<std::string> exchanges{"cart-w", "cart-v", "graph-w", "graph-v"};
  std::string graph_stencil = "full";
  std::vector<std::string> algos{"native", "linear", "aggregated", "auto"};
  int warmup = 2;
  int iters = 20;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) {
    if (!x.empty()) out.push_back(x);
  }
  return out;
}

const char* const kUsage =
    "usage: nbrcoll-stencil [--dims 2|3] [--n N[,N...]] [--halo H] [--exchanges cart-w,cart-v,graph-w,graph-v]\n"
    "                       [--graph-stencil full|faces] [--algos native,linear,aggregated,auto]\n"
    "                       [--warmup N] [--iters N]\n";

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument("option " + a + " needs a value");
    const std::string v = argv[++i];
    if (a == "--dims") {
      o.dims = std::stoi(v);
    } else if (a == "--n") {
      o.sizes.clear();
      for (const std::string& x : split(v)) o.sizes.push_back(std::stoi(x));
    } else if (a == "--halo") {
      o.halo = std::stoi(v);
    } else if (a == "--exchanges") {
      o.exchanges = split(v);
    } else if (a == "--graph-stencil") {
      o.graph_stencil = v;
    } else if (a == "--algos") {
      o.algos = split(v);
    } else if (a == "--warmup") {
      o.warmup = std::stoi(v);
    } else if (a == "--iters") {
      o.iters = std::stoi(v);
    } else {
      throw std::invalid_argument("unknown option " + a);
    }
  }
  if (o.dims != 2 && o.dims != 3) throw std::invalid_argument("--dims must be 2 or 3");
  if (o.sizes.empty()) o.sizes = o.dims == 2 ? std::vector<int>{16, 128, 1024} : std::vector<int>{8, 24, 64};
  for (const std::string& e : o.exchanges) {
    if (e != "cart-w" && e != "cart-v" && e != "graph-w" && e != "graph-v")
      throw std::invalid_argument("unknown exchange " + e);
  }
  if (o.iters < 1 || o.warmup < 0) throw std::invalid_argument("--iters >= 1, --warmup >= 0");
  return o;
}

MPI_Datatype subarray(const Grid& g, const Box& b) {
  int sizes[nbrstencil::kMaxDims];
  int sub[nbrstencil::kMaxDims];
  int starts[nbrstencil::kMaxDims];
  for (int k = 0; k < g.dims; ++k) {
    const auto u = static_cast<std::size_t>(k);
    sizes[k] = g.extent();
    sub[k] = b.size[u];
    starts[k] = b.start[u];
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  MPI_Type_create_subarray(g.dims, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

// One way of exchanging the halo of one array.
class Exchange {
 public:
  Exchange(const std::string& name, const Grid& g, nbrstencil::Stencil graph_stencil, int rank) : name_(name), g_(g) {
    const bool cart = name.rfind("cart", 0) == 0;
    per_block_types_ = name.back() == 'w';
    const Index me = nbrstencil::coords_of(g, rank);
    if (cart) {
      int procs[nbrstencil::kMaxDims];
      int periods[nbrstencil::kMaxDims];
      for (int k = 0; k < g.dims; ++k) {
        procs[k] = g.procs[static_cast<std::size_t>(k)];
        periods[k] = g.periodic[static_cast<std::size_t>(k)] ? 1 : 0;
      }
      MPI_Cart_create(MPI_COMM_WORLD, g.dims, procs, periods, 0, &comm_);
      offsets_ = nbrstencil::neighbour_offsets(g, nbrstencil::Stencil::kFaces);
      for (int k = 0; k < g.dims; ++k) {
        int below = MPI_PROC_NULL;
        int above = MPI_PROC_NULL;
        MPI_Cart_shift(comm_, k, 1, &below, &above);
        peers_.push_back(below);
        peers_.push_back(above);
      }
      // The closed form's neighbours are the MPI's.
      for (std::size_t i = 0; i < offsets_.size(); ++i) {
        const int want = nbrstencil::rank_at(g, me, offsets_[i]);
        if (peers_[i] != (want < 0 ? MPI_PROC_NULL : want))
          throw std::runtime_error("MPI_Cart_shift disagrees with the grid's neighbours");
      }
    } else {
      for (const Index& o : nbrstencil::neighbour_offsets(g, graph_stencil)) {
        const int peer = nbrstencil::rank_at(g, me, o);
        if (peer < 0) continue;  // beyond a non-periodic border: not a neighbour
        offsets_.push_back(o);
        peers_.push_back(peer);
      }
      const int k = static_cast<int>(peers_.size());
      MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, k, peers_.data(), MPI_UNWEIGHTED, k, peers_.data(), MPI_UNWEIGHTED,
                                     MPI_INFO_NULL, 0, &comm_);
    }
    const std::size_t k = offsets_.size();
    for (std::size_t i = 0; i < k; ++i) {
      const Box s = nbrstencil::send_box(g, offsets_[i]);
      const Box r = nbrstencil::recv_box(g, offsets_[i]);
      if (per_block_types_) {
        send_types_.push_back(subarray(g, s));
        recv_types_.push_back(subarray(g, r));
      }
      send_counts_.push_back(static_cast<int>(s.cells()));
      send_displs_.push_back(packed_);
      recv_counts_.push_back(static_cast<int>(r.cells()));
      recv_displs_.push_back(packed_);
      packed_ += static_cast<int>(s.cells());
    }
    ones_.assign(k, 1);
    zeros_.assign(k, 0);
    for (auto* v : {&send_counts_, &send_displs_, &recv_counts_, &recv_displs_, &ones_}) v->reserve(1);
    zeros_.reserve(1);
    send_types_.reserve(1);
    recv_types_.reserve(1);
    send_buf_.resize(static_cast<std::size_t>(packed_) + 1);
    recv_buf_.resize(static_cast<std::size_t>(packed_) + 1);
  }
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;
  ~Exchange() {
    for (MPI_Datatype& t : send_types_) MPI_Type_free(&t);
    for (MPI_Datatype& t : recv_types_) MPI_Type_free(&t);
    MPI_Comm_free(&comm_);
  }

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::vector<Index>& offsets() const { return offsets_; }
  [[nodiscard]] MPI_Comm comm() const { return comm_; }

  // One halo exchange of `field`.
  int run(double* field) {
    if (per_block_types_)
      return MPI_Neighbor_alltoallw(field, ones_.data(), zeros_.data(), send_types_.data(), field, ones_.data(),
                                    zeros_.data(), recv_types_.data(), comm_);
    for (std::size_t i = 0; i < offsets_.size(); ++i) {
      if (peers_[i] == MPI_PROC_NULL) continue;
      double* to = send_buf_.data() + send_displs_[i];
      nbrstencil::for_each_cell(g_, nbrstencil::send_box(g_, offsets_[i]), [&](std::size_t c) { *to++ = field[c]; });
    }
    const int rc =
        MPI_Neighbor_alltoallv(send_buf_.data(), send_counts_.data(), send_displs_.data(), MPI_DOUBLE, recv_buf_.data(),
                               recv_counts_.data(), recv_displs_.data(), MPI_DOUBLE, comm_);
    for (std::size_t i = 0; i < offsets_.size(); ++i) {
      if (peers_[i] == MPI_PROC_NULL) continue;
      const double* from = recv_buf_.data() + recv_displs_[i];
      nbrstencil::for_each_cell(g_, nbrstencil::recv_box(g_, offsets_[i]), [&](std::size_t c) { field[c] = *from++; });
    }
    return rc;
  }

 private:
  std::string name_;
  Grid g_;
  bool per_block_types_ = false;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<Index> offsets_;  // per neighbour, in the communicator's order
  std::vector<int> peers_;      // MPI_PROC_NULL at a Cartesian border
  std::vector<MPI_Datatype> send_types_;
  std::vector<MPI_Datatype> recv_types_;
  std::vector<int> ones_;
  std::vector<MPI_Aint> zeros_;
  std::vector<int> send_counts_;
  std::vector<int> send_displs_;
  std::vector<int> recv_counts_;
  std::vector<int> recv_displs_;
  std::vector<double> send_buf_;
  std::vector<double> recv_buf_;
  int packed_ = 0;
};

int run(const Options& o) {
  const nbrbench::World w = nbrbench::describe_world();
  int procs[nbrstencil::kMaxDims] = {0, 0, 0};
  MPI_Dims_create(w.procs, o.dims, procs);
  const nbrbench::RunInfo info = nbrbench::describe_run(o.iters, w.emulated);
  const nbrstencil::Stencil graph_stencil = nbrstencil::parse_stencil(o.graph_stencil);
  for (const std::string& a : o.algos) {
    if (nbrstencil_select_algo(a.c_str()) != 0) throw std::invalid_argument("unknown algorithm " + a);
  }
  bool heading = false;
  nbrbench::Checker checker;
  std::uint64_t call = 0;
  for (const int n : o.sizes) {
    const Grid g = nbrstencil::make_grid(o.dims, {procs[0], procs[1], procs[2]}, n, o.halo);
    if (!heading && w.rank == 0) {
      const int periodic[nbrstencil::kMaxDims] = {g.periodic[0] ? 1 : 0, g.periodic[1] ? 1 : 0, g.periodic[2] ? 1 : 0};
      const std::string mpi = info.mpi + " " + info.mpi_version + ", nbrcoll " + info.nbrcoll_version + " (" +
                              (w.emulated ? "emulated nodes" : "nodes by host") + ", topology " + info.topology + ")";
      nbrstencil_print_heading("nbrcoll-stencil", o.dims, procs, periodic, w.procs, w.nodes, o.iters, mpi.c_str());
    }
    heading = true;
    std::vector<double> field(g.cells());
    for (const std::string& name : o.exchanges) {
      // A communicator for each algorithm, made with it selected, as an
      // application repeats one exchange: nbrcoll keeps what a repeated call
      // reuses per communicator (docs/DESIGN.md, "Calls that repeat"), which
      // calls of other algorithms on the same one would undo every round.
      std::vector<std::unique_ptr<Exchange>> xs;
      for (const std::string& a : o.algos) {
        nbrbench::select_algo(a);
        xs.push_back(std::make_unique<Exchange>(name, g, graph_stencil, w.rank));
      }
      const Exchange& x = *xs.front();
      nbrbench::CallSteps steps;
      steps.prepare = [&](std::size_t, std::uint64_t c) { nbrstencil::fill(g, w.rank, field.data(), c); };
      steps.run = [&](std::size_t a) {
        if (xs[a]->run(field.data()) != MPI_SUCCESS) checker.fail(name + " " + o.algos[a] + ": the call failed");
      };
      steps.check = [&](std::size_t a, std::uint64_t c) {
        const long long bad = nbrstencil::first_wrong_cell(g, w.rank, x.offsets(), field.data(), c);
        if (bad >= 0)
          checker.fail(name + " n " + std::to_string(n) + " " + o.algos[a] + " call " + std::to_string(c) + ": cell " +
                       std::to_string(bad) + " differs from the closed form");
      };
      // auto is timed as a program that repeats the exchange runs it: once
      // its tuning has settled (nbrcoll-bench does the same).
      for (std::size_t a = 0; a < o.algos.size(); ++a) {
        if (o.algos[a] != "auto") continue;
        const int made = nbrbench::settle(a, o.algos[a], xs[a]->comm(), nbrbench::kSettleLimit, call, steps);
        if (w.rank == 0 && made > 1) nbrstencil_print_settled(name.c_str(), n, made);
      }
      const std::vector<nbrbench::Timed> timed = nbrbench::time_interleaved(o.algos, o.warmup, o.iters, call, steps);
      int neighbours = static_cast<int>(x.offsets().size());
      MPI_Allreduce(MPI_IN_PLACE, &neighbours, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      long long face = 8LL * o.halo;
      for (int k = 1; k < o.dims; ++k) face *= n;
      if (w.rank == 0) nbrstencil::print_rows(name, n, o.halo, neighbours, face, o.algos, timed);
    }
  }
  return nbrbench::report_failures(checker, w.rank) ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = 0;
  try {
    rc = run(parse(argc, argv));
  } catch (const std::exception& e) {
    if (rank == 0) std::cerr << "nbrcoll-stencil: " << e.what() << "\n" << kUsage;
    rc = 2;
  }
  MPI_Finalize();
  return rc;
}
