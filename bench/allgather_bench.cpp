#include <climits>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/fill.h"
#include "core/sizes.h"
#include "device_buffers.h"
#include "harness.h"
#include "nbrcoll_hooks.h"
#include "patterns.h"

namespace nbrbench {

namespace {

constexpr std::size_t kGuard = 64;  // guard bytes before and after the receive buffer

// Checks every slot of `recv` (kGuard bytes of guard, then in.size() blocks,
// then kGuard bytes of guard).
void check_allgather(const std::vector<std::uint8_t>& recv, const std::vector<int>& in, std::size_t block,
                     std::uint64_t call, const std::string& what, Checker& chk) {
  for (std::size_t i = 0; i < kGuard; ++i)
    if (recv[i] != kGuardByte || recv[recv.size() - 1 - i] != kGuardByte) {
      chk.fail(what + ": guard byte overwritten");
      return;
    }
  for (std::size_t k = 0; k < in.size(); ++k) {
    const std::uint8_t* slot = recv.data() + kGuard + k * block;
    const std::size_t bad = first_mismatch(slot, block, in[k], call);
    if (bad < block) {
      std::ostringstream s;
      s << what << ": slot " << k << " (source rank " << in[k] << ") byte " << bad << " is "
        << static_cast<int>(slot[bad]) << ", expected " << static_cast<int>(expected_byte(in[k], bad, call));
      chk.fail(s.str());
      return;
    }
  }
}

}  // namespace

std::vector<TrafficRow> collect_traffic(const std::vector<std::string>& algos, const std::vector<MPI_Comm>& comms,
                                        const World& w, const std::vector<int>& out,
                                        const std::function<std::uint64_t(int)>& block_of) {
  std::vector<TrafficRow> rows;
  for (std::size_t a = 0; a < algos.size(); ++a) {
    const Traffic mine = algos[a] == "native"
                             ? native_traffic(comms[a], w.rank, out, block_of(w.rank), w.node_of)
                             : plan_traffic(comms[a], algos[a] == "auto" ? "leader" : algos[a], block_of);
    const Traffic sum = reduce_traffic(mine, MPI_COMM_WORLD);
    TrafficRow r{algos[a], sum.messages, sum.bytes, sum.have ? "" : "(nbrcoll holds no plan)"};
    if (algos[a] == "auto") r.algo = "auto(leader plan)";
    rows.push_back(r);
  }
  return rows;
}

Outcome run_allgather(const Options& o, const World& w, const Graph& g) {
  if (g.n != w.procs)
    throw std::runtime_error("graph has " + std::to_string(g.n) + " vertices for " + std::to_string(w.procs) +
                             " ranks");
  Outcome res;
  {
    std::ostringstream d;
    d << o.pattern << " (" << params_string(o) << "), " << w.procs << " procs, " << w.nodes << " nodes"
      << (w.emulated ? " (emulated)" : "") << ", " << g.edges() << " edges";
    res.description = d.str();
  }
  std::optional<DeviceBuffers> dev;
  bool staged_native = false;
  if (!o.device.empty()) {
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

  Checker chk;
  std::uint64_t call = 1;
  std::size_t step = 0;
  for (const std::uint64_t size : o.sizes) {
    if (size > static_cast<std::uint64_t>(INT_MAX)) throw std::runtime_error("block size above INT_MAX bytes");
    const auto block = static_cast<std::size_t>(size);
    std::vector<std::uint8_t> send(block);
    std::vector<std::uint8_t> recv(2 * kGuard + spec.in.size() * block, kGuardByte);
    if (!o.validate) fill_block(send.data(), block, w.rank, 0);
    // Device mode: the same bytes in device memory; host vectors stay the staging and checking side.
    std::optional<DeviceBlock> dsend;
    std::optional<DeviceBlock> drecv;
    if (dev) {
      dsend.emplace(*dev, block);
      drecv.emplace(*dev, recv.size());
      dsend->upload(send.data(), block);
      drecv->upload(recv.data(), recv.size());
    }
    CallSteps steps;
    if (o.validate) {
      steps.prepare = [&](std::size_t, std::uint64_t c) {
        fill_block(send.data(), block, w.rank, c);
        if (dsend) dsend->upload(send.data(), block);
      };
      steps.check = [&](std::size_t a, std::uint64_t c) {
        if (drecv) drecv->download(recv.data(), recv.size());
        if (o.inject_fault && w.rank == w.procs - 1 && !spec.in.empty() && block > 0) recv[kGuard + block / 2] ^= 0x40;
        check_allgather(recv, spec.in, block, c,
                        o.algos[a] + " size " + std::to_string(size) + " call " + std::to_string(c), chk);
      };
    }
    const std::size_t blocks = spec.in.size() * block;
    steps.run = [&](std::size_t a) {
      if (!dev) {
        MPI_Neighbor_allgather(send.data(), static_cast<int>(block), MPI_BYTE, recv.data() + kGuard,
                               static_cast<int>(block), MPI_BYTE, comms[a]);
      } else if (o.algos[a] == "native" && staged_native) {
        // What an application does when its MPI cannot take device memory.
        dsend->download(send.data(), block);
        PMPI_Neighbor_allgather(send.data(), static_cast<int>(block), MPI_BYTE, recv.data() + kGuard,
                                static_cast<int>(block), MPI_BYTE, comms[a]);
        drecv->upload(recv.data() + kGuard, blocks, kGuard);
      } else {
        MPI_Neighbor_allgather(dsend->data(), static_cast<int>(block), MPI_BYTE,
                               static_cast<char*>(drecv->data()) + kGuard, static_cast<int>(block), MPI_BYTE, comms[a]);
      }
    };
    const auto sums = time_interleaved(o.algos, o.warmup, o.iters, call, steps);
    for (std::size_t a = 0; a < o.algos.size(); ++a)
      res.rows.push_back({o.pattern, params_string(o), w.procs, w.nodes, size, o.algos[a], sums[a], {}});
    progress(w.rank, ++step, o.sizes.size(), "size " + format_size(size));
  }
  res.failed = report_failures(chk, w.rank);
  compute_speedups(res.rows);

  res.traffic_block = o.sizes.empty() ? 0 : o.sizes.back();
  res.traffic = collect_traffic(o.algos, comms, w, spec.out, [&](int) { return res.traffic_block; });
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  res.create = time_creation(o.algos, o.create_reps, spec);
  return res;
}

}  // namespace nbrbench
