#include "transport/linear_run.h"

#include "engine/engine.h"
#include "transport/byte_message.h"
#include "transport/host.h"
#include "transport/status_bytes.h"

namespace nbrcoll {

namespace {
constexpr auto kLinear = static_cast<std::size_t>(algos::Variant::kLinear);
}  // namespace

void LinearRun::start() {
  const algos::Plan& plan = schedule_.mixed.plan;
  const std::vector<int>& recvs = schedule_.recvs_of[kLinear];
  const std::vector<int>& sends = schedule_.own_sends_of[kLinear];
  requests_.clear();
  requests_.reserve(recvs.size() + sends.size());
  const bool hollow = blocks_.hollow;
  for (const int i : recvs) {
    const algos::Recv& r = plan.recvs[static_cast<std::size_t>(i)];
    const auto slot = static_cast<std::size_t>(r.slot);
    const algos::ByteRange range = algos::share_bytes(r.share, blocks_.slot_bytes[slot]);
    const ByteMessage m(range.size());
    outcome_.note(PMPI_Irecv(hollow ? nullptr : blocks_.slot_data[slot] + range.begin, m.count(), m.type(),
                             channel_.rank(r.peer), r.tag + channel_.tag_offset, channel_.comm, requests_.add_plain()));
  }
  for (const int i : sends) {
    const algos::Send& s = plan.sends[static_cast<std::size_t>(i)];
    const std::size_t block = s.out_edge >= 0 ? static_cast<std::size_t>(s.out_edge) : 0;
    const algos::ByteRange range = algos::share_bytes(s.share, blocks_.send_size(block));
    const ByteMessage m(range.size());
    outcome_.note(PMPI_Isend(hollow ? nullptr : blocks_.send(block) + range.begin, m.count(), m.type(),
                             channel_.rank(s.peer), s.tag + channel_.tag_offset, channel_.comm, requests_.add_plain()));
  }
}

bool LinearRun::step(bool block) {
  if (finished_) return true;
  if (!requests_.complete_all(block, outcome_.first_error)) return false;
  finished_ = true;
  if (outcome_.first_error != MPI_SUCCESS) return true;
  // The receives were posted first, in this order (start()).
  const algos::Plan& plan = schedule_.mixed.plan;
  const std::vector<int>& recvs = schedule_.recvs_of[kLinear];
  for (std::size_t k = 0; k < recvs.size(); ++k) {
    const algos::Recv& r = plan.recvs[static_cast<std::size_t>(recvs[k])];
    const std::uint64_t expected =
        algos::share_bytes(r.share, blocks_.slot_bytes[static_cast<std::size_t>(r.slot)]).size();
    if (outcome_.came_short(status_bytes(requests_.status(k)), expected, r.peer)) outcome_.note(MPI_ERR_OTHER);
  }
  if (outcome_.first_error == MPI_SUCCESS && !blocks_.hollow)
    outcome_.note(engine::local_copies(schedule_, choice_, blocks_, HostTransport::copy_local));
  return true;
}

}  // namespace nbrcoll
