// The graph patterns (rsg, moore, file): one neighbourhood collective
// (--op, --nonblocking / --persistent) per size and algorithm, every
// received byte checked after each call.
#include <algorithm>
#include <climits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "bench/core/compute.h"
#include "bench/core/exchange.h"
#include "bench/core/fill.h"
#include "bench/core/sizes.h"
#include "bench/device_buffers.h"
#include "bench/harness.h"
#include "bench/nbrcoll_hooks.h"
#include "bench/neighbor_call.h"
#include "bench/patterns.h"

namespace nbrbench {

namespace {

constexpr std::size_t kGuard = 64;  // guard bytes around the receive blocks (and between them for the v-variants)

// The same calls again, each with o.compute's computation between its start
// and its wait (validated as before): one overlap row per algorithm beside
// the pure timings `pure` of this size.
// `calls`: each algorithm's call; auto's is on a graph of its own
// (run_neighbor), which settles here first behind the same computation, as
// a program that computes between start and wait tunes it (its tuner times
// a call from its start to its completion, computation included).
// Returns the calls that settling made (0: none).
int add_overlap_rows(const Options& o, const World& w, std::uint64_t size, const std::vector<Timed>& pure,
                     const std::vector<NeighborCall*>& calls, const std::vector<MPI_Comm>& comms, CallSteps steps,
                     std::uint64_t& call, std::vector<Row>& rows) {
  const ComputeSpec& c = *o.compute;
  const std::size_t na = o.algos.size();
  const auto native = static_cast<std::size_t>(std::find(o.algos.begin(), o.algos.end(), "native") - o.algos.begin());
  const double target = c.as_native ? pure[native].us.median : c.us;
  std::vector<std::vector<double>> spent(na);  // per algorithm, per round (warm-up rounds first)
  steps.run = [&](std::size_t a) {
    calls[a]->start();
    spent[a].push_back(compute_for(c.kind, target));
    calls[a]->wait();
  };
  int settled = 0;
  for (std::size_t a = 0; a < na; ++a) {
    if (o.algos[a] == "auto" && o.mode == Mode::kNonblocking)
      settled += settle(a, o.algos[a], comms[a], kSettleLimit, call, steps);
  }
  const int iters = o.iters_for(size);
  const std::vector<Timed> overall = time_interleaved(o.algos, o.warmup, iters, call, steps);
  for (std::size_t a = 0; a < na; ++a) {
    std::vector<double> timed(spent[a].end() - iters, spent[a].end());
    MPI_Allreduce(MPI_IN_PLACE, timed.data(), iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    const double compute_us = summarize(timed).median;
    Row r;
    r.pattern = o.pattern;
    r.params = params_string(o);
    r.procs = w.procs;
    r.nodes = w.nodes;
    r.size_bytes = size;
    r.algo = o.algos[a];
    r.us = overall[a].us;
    r.op = op_name(o.op, o.mode) + kComputeSuffix;
    r.paired = overall[a].paired;
    r.compute_us = compute_us;
    r.iters = iters;
    r.overlap_pct = overlap_percent(pure[a].us.median, compute_us, overall[a].us.median);
    rows.push_back(r);
  }
  return settled;
}

}  // namespace

std::vector<TrafficRow> collect_traffic(Op op, const std::vector<std::string>& algos,
                                        const std::vector<MPI_Comm>& comms, const World& w, const std::vector<int>& out,
                                        const EdgeBytes& bytes_of, const BlockBytes& block_bytes) {
  std::vector<TrafficRow> rows;
  for (std::size_t a = 0; a < algos.size(); ++a) {
    std::optional<Traffic> mine;
    if (algos[a] == "native")
      mine = native_traffic(
          comms[a], w.rank, out, [&](std::size_t j) { return bytes_of(w.rank, j); }, w.node_of);
    else if (per_edge(op))
      mine = alltoall_plan_traffic(comms[a], algos[a], bytes_of, block_bytes);
    else
      mine = plan_traffic(comms[a], algos[a] == "auto" ? "leader" : algos[a],
                          [&](int origin) { return bytes_of(origin, 0); });
    TrafficRow r{algos[a], {}, {}, "n/a (nbrcoll holds no plan)"};
    if (mine) {  // the same on every rank: the reduction is collective
      const Traffic sum = reduce_traffic(*mine, MPI_COMM_WORLD);
      r = {algos[a], sum.messages, sum.bytes, sum.have ? "" : "(nbrcoll holds no plan)"};
    }
    if (algos[a] == "auto" && !per_edge(op)) r.algo = "auto(leader plan)";
    rows.push_back(r);
  }
  return rows;
}

Outcome run_neighbor(const Options& o, const World& w, const Graph& g) {
  if (g.n != w.procs)
    throw std::runtime_error("graph has " + std::to_string(g.n) + " vertices for " + std::to_string(w.procs) +
                             " ranks");
  const std::string op = op_name(o.op, o.mode);
  Outcome res;
  {
    std::ostringstream d;
    d << o.pattern << " (" << params_string(o) << "), " << w.procs << " procs, " << w.nodes << " nodes"
      << (w.emulated ? " (emulated)" : "") << ", " << g.edges() << " edges, MPI_" << op;
    if (o.op == Op::kAllgatherv || o.op == Op::kAlltoallv) d << " (blocks of 1/4 to 4/4 of the size, per edge)";
    if (o.thread_multiple) d << ", MPI_THREAD_MULTIPLE";
    res.description = d.str();
  }
  std::optional<DeviceBuffers> dev;
  bool staged_native = false;
  if (!o.device.empty()) {  // allgather, blocking only (parse_options)
    dev.emplace(o.device, w.rank);
    staged_native = !mpi_takes_device_memory(dev->backend());
    res.description += std::string(", device buffers (") + dev->backend().name + "); native = " +
                       (staged_native ? "PMPI on host copies, copies timed" : "PMPI on the device buffers");
  }
  const auto me = static_cast<std::size_t>(w.rank);
  GraphSpec spec{g.in[me], g.out[me]};
  std::vector<MPI_Comm> comms;
  for (const auto& a : o.algos) {
    select_algo(a);
    comms.push_back(create_graph(spec));
  }
  // The overlap table's calls: auto's nonblocking ones on a graph of their
  // own, so that they tune behind the computation (add_overlap_rows) while
  // the pure table's tune waited for at once; the others on the same graphs.
  std::vector<MPI_Comm> overlap_comms = comms;
  for (std::size_t a = 0; a < o.algos.size(); ++a) {
    if (!o.compute || o.algos[a] != "auto" || o.mode != Mode::kNonblocking) continue;
    select_algo(o.algos[a]);
    overlap_comms[a] = create_graph(spec);
  }

  Checker chk;
  std::uint64_t call = 1;
  std::size_t step = 0;
  for (const std::uint64_t size : o.sizes) {
    if (size > static_cast<std::uint64_t>(INT_MAX)) throw std::runtime_error("block size above INT_MAX bytes");
    const Exchange ex = layout_exchange(o.op, g, w.rank, size, kGuard);
    std::vector<std::uint8_t> send(std::max<std::size_t>(ex.send_bytes, 1));  // data() never null
    std::vector<std::uint8_t> recv(ex.recv_bytes, kGuardByte);
    auto fill = [&](std::uint64_t c) {
      for (const Block& b : ex.send) fill_block(send.data() + b.offset, b.bytes, b.key, c);
    };
    if (!o.validate) fill(0);
    // Device mode: the same bytes in device memory; host vectors stay the staging and checking side.
    std::optional<DeviceBlock> dsend;
    std::optional<DeviceBlock> drecv;
    if (dev) {
      dsend.emplace(*dev, ex.send_bytes);
      drecv.emplace(*dev, recv.size());
      dsend->upload(send.data(), ex.send_bytes);
      drecv->upload(recv.data(), recv.size());
    }
    // One call object per algorithm, made with it selected (persistent: the
    // request is initialised then); freed before the buffers.
    std::vector<std::unique_ptr<NeighborCall>> calls;
    std::vector<NeighborCall*> overlap_calls;
    std::vector<std::unique_ptr<NeighborCall>> own_overlap_calls;
    for (std::size_t a = 0; a < o.algos.size(); ++a) {
      select_algo(o.algos[a]);
      const auto make = [&](MPI_Comm c) {
        return std::make_unique<NeighborCall>(o.op, o.mode, ex, dev ? dsend->data() : send.data(),
                                              dev ? drecv->data() : recv.data(), c);
      };
      calls.push_back(make(comms[a]));
      if (overlap_comms[a] != comms[a]) own_overlap_calls.push_back(make(overlap_comms[a]));
      overlap_calls.push_back(overlap_comms[a] != comms[a] ? own_overlap_calls.back().get() : calls.back().get());
    }
    CallSteps steps;
    if (o.validate) {
      steps.prepare = [&](std::size_t, std::uint64_t c) {
        fill(c);
        if (dsend) dsend->upload(send.data(), ex.send_bytes);
      };
      steps.check = [&](std::size_t a, std::uint64_t c) {
        if (drecv) drecv->download(recv.data(), recv.size());
        if (o.inject_fault && w.rank == w.procs - 1 && !ex.recv.empty() && ex.recv[0].bytes > 0)
          recv[ex.recv[0].offset + ex.recv[0].bytes / 2] ^= 0x40;
        if (const auto bad = check_received(recv.data(), ex, c))
          chk.fail(o.algos[a] + " size " + std::to_string(size) + " call " + std::to_string(c) + ": " + *bad);
      };
    }
    steps.run = [&](std::size_t a) {
      if (dev && o.algos[a] == "native" && staged_native) {
        // What an application does when its MPI cannot take device memory.
        const int block = static_cast<int>(size);
        dsend->download(send.data(), ex.send_bytes);
        PMPI_Neighbor_allgather(send.data(), block, MPI_BYTE, recv.data() + kGuard, block, MPI_BYTE, comms[a]);
        drecv->upload(recv.data() + kGuard, recv.size() - 2 * kGuard, kGuard);
      } else {
        calls[a]->run();
      }
    };
    // auto is timed as a program that repeats the call runs it: once its
    // tuning has settled on this size (blocking calls tune, and nonblocking
    // ones; persistent ones never: their init chose). Nonblocking calls
    // settle as this table times them, waited for at once; the overlap
    // table's settle behind its computation, on a graph of their own.
    for (std::size_t a = 0; a < o.algos.size(); ++a) {
      if (o.algos[a] != "auto" || o.mode == Mode::kPersistent) continue;
      const int made = settle(a, o.algos[a], comms[a], kSettleLimit, call, steps);
      if (made > 0) res.settled += (res.settled.empty() ? "" : ", ") + format_size(size) + " " + std::to_string(made);
    }
    const int iters = o.iters_for(size);
    const auto sums = time_interleaved(o.algos, o.warmup, iters, call, steps);
    // The model assumes equal blocks: the v-variants' blocks are 1/4 to 4/4
    // of the size, 5/8 on average.
    const bool variable = o.op == Op::kAllgatherv || o.op == Op::kAlltoallv;
    const std::uint64_t model_block = variable ? size * 5 / 8 : size;
    for (std::size_t a = 0; a < o.algos.size(); ++a) {
      const std::string& algo = o.algos[a];
      res.rows.push_back({o.pattern,
                          params_string(o),
                          w.procs,
                          w.nodes,
                          size,
                          o.algos[a],
                          sums[a].us,
                          {},
                          op,
                          predicted_us(comms[a], algo, per_edge(o.op), model_block, o.mode != Mode::kBlocking),
                          sums[a].paired,
                          {},
                          {},
                          iters});
    }
    if (o.compute) {
      const int made = add_overlap_rows(o, w, size, sums, overlap_calls, overlap_comms, steps, call, res.rows);
      if (made > 0)
        res.settled +=
            (res.settled.empty() ? "" : ", ") + format_size(size) + " behind computation " + std::to_string(made);
    }
    progress(w.rank, ++step, o.sizes.size(), "size " + format_size(size));
  }
  res.failed = report_failures(chk, w.rank);
  compute_speedups(res.rows);

  res.traffic_block = o.sizes.empty() ? 0 : o.sizes.back();
  const auto edge_bytes = [&](int origin, std::size_t j) { return block_bytes(o.op, res.traffic_block, origin, j); };
  // The block of the k-th edge origin -> dest: its out-edge index in the graph.
  const auto piece_bytes = [&](int origin, int dest, int k) -> std::uint64_t {
    const auto& outs = g.out[static_cast<std::size_t>(origin)];
    for (std::size_t j = 0; j < outs.size(); ++j) {
      if (outs[j] == dest && k-- == 0) return edge_bytes(origin, j);
    }
    return 0;
  };
  res.traffic = collect_traffic(o.op, o.algos, comms, w, spec.out, edge_bytes, piece_bytes);
  for (std::size_t a = 0; a < comms.size(); ++a) {
    if (overlap_comms[a] != comms[a]) MPI_Comm_free(&overlap_comms[a]);
  }
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  // Rounds of creation and calls: the op at the smallest size, in the
  // run's mode (a persistent request made and started on each graph).
  const std::uint64_t small = o.sizes.empty() ? 1024 : o.sizes.front();
  const Exchange round_ex = layout_exchange(o.op, g, w.rank, small, kGuard);
  std::vector<std::uint8_t> round_send(std::max<std::size_t>(round_ex.send_bytes, 1));
  std::vector<std::uint8_t> round_recv(round_ex.recv_bytes, kGuardByte);
  res.create = time_creation(o.algos, o.create_reps, spec, [&](MPI_Comm c) {
    NeighborCall(o.op, o.mode, round_ex, round_send.data(), round_recv.data(), c).run();
  });
  return res;
}

}  // namespace nbrbench
