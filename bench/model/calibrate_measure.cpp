#include "bench/model/calibrate_measure.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <utility>

#include "bench/model/calibrate_core.h"
#include "support/config.h"
#include "support/introspect.h"

namespace nbrcalib {

namespace {

constexpr int kTag = 7301;

double bcast(MPI_Comm comm, double v, int root) {
  MPI_Bcast(&v, 1, MPI_DOUBLE, root, comm);
  return v;
}

int rank_of(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

// One rank's part of an exchange: `bytes` to each of `to`, as much from
// each of `from`, all at once. One buffer per receive (pending receives
// must not overlap); the sends share one.
class Exchange {
 public:
  Exchange(MPI_Comm comm, std::vector<int> to, std::vector<int> from, std::uint64_t bytes)
      : comm_(comm),
        to_(std::move(to)),
        from_(std::move(from)),
        out_(bytes, 1),
        in_(from_.size(), std::vector<char>(bytes)),
        reqs_(to_.size() + from_.size()),
        count_(static_cast<int>(bytes)) {}
  // Posts it and waits for it: this rank's time in us.
  double run_us() {
    const double t0 = MPI_Wtime();
    std::size_t k = 0;
    for (std::size_t i = 0; i < from_.size(); ++i)
      MPI_Irecv(in_[i].data(), count_, MPI_BYTE, from_[i], kTag, comm_, &reqs_[k++]);
    for (const int dst : to_) MPI_Isend(out_.data(), count_, MPI_BYTE, dst, kTag, comm_, &reqs_[k++]);
    MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
    return (MPI_Wtime() - t0) * 1e6;
  }

 private:
  MPI_Comm comm_;
  std::vector<int> to_, from_;
  std::vector<char> out_;
  std::vector<std::vector<char>> in_;
  std::vector<MPI_Request> reqs_;
  int count_;
};

}  // namespace

void quiet_barrier(MPI_Comm comm) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &req);
  int done = 0;
  MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  // Sleeps from 1 ms up to 64 ms: on an oversubscribed host every wake-up of
  // an idle rank may preempt a measuring one, so idle ranks wake seldom.
  for (int ms = 1; !done; ms = std::min(2 * ms, 64)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
  }
}

std::vector<std::uint8_t> link_classes(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const int me = rank_of(comm);
  std::vector<int> others;
  for (int r = 0; r < size; ++r)
    if (r != me) others.push_back(r);
  MPI_Comm graph = MPI_COMM_NULL;
  const int n = static_cast<int>(others.size());
  MPI_Dist_graph_create_adjacent(comm, n, others.data(), MPI_UNWEIGHTED, n, others.data(), MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &graph);
  const auto u = static_cast<std::size_t>(size);
  std::vector<std::uint8_t> row(u, kNoClass);
  const nbrcoll::algos::Plan* plan = nbrcoll::plan_for(graph, nbrcoll::algos::Variant::kLinear);
  if (plan != nullptr)
    for (const auto& s : plan->sends) row[static_cast<std::size_t>(s.peer)] = static_cast<std::uint8_t>(s.link);
  int have = plan != nullptr ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, comm);
  std::vector<std::uint8_t> all(u * u);
  MPI_Allgather(row.data(), size, MPI_UINT8_T, all.data(), size, MPI_UINT8_T, comm);
  MPI_Comm_free(&graph);
  if (have == 0) all.clear();
  return all;
}

double one_way_us(MPI_Comm comm, int a, int b, std::uint64_t bytes, int iters, int warmup) {
  const int me = rank_of(comm);
  double result = 0;
  if (me == a || me == b) {
    std::vector<char> buf(bytes);
    const int count = static_cast<int>(bytes);
    const int peer = me == a ? b : a;
    std::vector<double> half;
    for (int i = -warmup; i < iters; ++i) {
      const double t0 = MPI_Wtime();
      if (me == a) {
        MPI_Send(buf.data(), count, MPI_BYTE, peer, kTag, comm);
        MPI_Recv(buf.data(), count, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf.data(), count, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE);
        MPI_Send(buf.data(), count, MPI_BYTE, peer, kTag, comm);
      }
      if (i >= 0) half.push_back((MPI_Wtime() - t0) * 1e6 / 2);
    }
    result = median(half);
  }
  quiet_barrier(comm);
  return bcast(comm, result, a);
}

double node_bytes_per_us(MPI_Comm comm, const std::vector<int>& node_of, const std::vector<NodeFlow>& flows,
                         std::uint64_t bytes, int reps, int pause_ms) {
  const int me = rank_of(comm);
  const int mine = node_of[static_cast<std::size_t>(me)];
  std::vector<int> sends_to, recvs_from;  // this rank's messages
  bool part_of = false;
  std::size_t most_senders = 0;
  int first_sender = -1;
  for (std::size_t fi = 0; fi < flows.size(); ++fi) {
    const NodeFlow& f = flows[fi];
    std::vector<int> senders, receivers;
    for (std::size_t r = 0; r < node_of.size(); ++r) {
      if (node_of[r] == f.from) senders.push_back(static_cast<int>(r));
      if (node_of[r] == f.to) receivers.push_back(static_cast<int>(r));
    }
    if (first_sender < 0) first_sender = senders.front();
    most_senders = std::max(most_senders, senders.size());
    part_of = part_of || mine == f.from || mine == f.to;
    for (std::size_t i = 0; i < senders.size(); ++i) {
      // Flow k starts k receivers on: where two flows join the same nodes
      // both ways (2 nodes), no pair of ranks carries both directions (one
      // connection each way between the same two ranks read 40% slower at 1
      // Gbit/s than distinct peers; a halo exchange's ranks talk to several).
      const int dst = receivers[(i + fi) % receivers.size()];
      if (me == senders[i]) sends_to.push_back(dst);
      if (me == dst) recvs_from.push_back(senders[i]);
    }
  }
  MPI_Comm part = MPI_COMM_NULL;
  MPI_Comm_split(comm, part_of ? 0 : MPI_UNDEFINED, me, &part);
  double result = 0;
  if (part != MPI_COMM_NULL) {
    Exchange exchange(comm, sends_to, recvs_from, bytes);
    std::vector<double> rounds;
    for (int round = -1; round < reps; ++round) {  // round -1: warm-up
      if (pause_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
      MPI_Barrier(part);
      double took = exchange.run_us();
      MPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX, part);
      if (round >= 0) rounds.push_back(took);
    }
    // The node with the most senders moved the most in that time.
    result = static_cast<double>(bytes) * static_cast<double>(most_senders) / median(rounds);
    MPI_Comm_free(&part);
  }
  quiet_barrier(comm);
  return bcast(comm, result, first_sender);
}

double exchange_us(MPI_Comm comm, const std::vector<std::vector<int>>& peers_of, std::uint64_t bytes, int reps,
                   int warmup) {
  const int me = rank_of(comm);
  Exchange exchange(comm, peers_of[static_cast<std::size_t>(me)], senders_to(peers_of, me), bytes);
  std::vector<double> took(static_cast<std::size_t>(warmup + reps));
  for (double& t : took) {
    MPI_Barrier(comm);
    t = exchange.run_us();
  }
  MPI_Allreduce(MPI_IN_PLACE, took.data(), static_cast<int>(took.size()), MPI_DOUBLE, MPI_MAX, comm);
  took.erase(took.begin(), took.begin() + warmup);
  const double result = median(took);
  quiet_barrier(comm);
  return result;  // the same on every rank (from one reduction)
}

double copy_bytes_per_us(MPI_Comm comm, std::uint64_t bytes, int reps) {
  double result = 0;
  if (rank_of(comm) == 0) {
    std::vector<char> src(bytes, 1), dst(bytes, 0);  // both touched: no page faults in the timing
    std::vector<double> us;
    volatile char sink = 0;  // reads the copy, so it cannot be left out
    for (int i = -1; i < reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      std::memcpy(dst.data(), src.data(), bytes);
      const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - t0;
      sink = static_cast<char>(sink + dst[static_cast<std::size_t>(i + 1) % bytes]);
      if (i >= 0) us.push_back(took.count());
    }
    result = static_cast<double>(bytes) / median(us);
  }
  quiet_barrier(comm);
  return bcast(comm, result, 0);
}

std::string host_key() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (f && std::getline(f, id) && !id.empty()) return "boot:" + id;
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return std::string("host:") + name;
}

std::vector<std::uint64_t> cpu_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<std::uint64_t> mask(CPU_SETSIZE / 64, 0);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < std::min<long>(n, CPU_SETSIZE); ++c)
      mask[static_cast<std::size_t>(c / 64)] |= 1ULL << (c % 64);
    return mask;
  }
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) mask[static_cast<std::size_t>(c / 64)] |= 1ULL << (c % 64);
  return mask;
}

}  // namespace nbrcalib
