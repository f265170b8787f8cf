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
  if (standing_ != nullptr && !blocks_.hollow && (standing_->ready_for(key_) || ran_before_)) {
    if (!standing_->ready_for(key_)) {
      requests_ = &standing_->rebuild(key_);
      post(true);
      if (outcome_.first_error != MPI_SUCCESS) {
        standing_->release();  // what was made is freed; the call fails as a posting error would
        requests_->give_up();
        return;
      }
    }
    requests_ = &standing_->requests();
    on_standing_ = true;
    outcome_.note(standing_->start());
    return;
  }
  post(false);
}

// The linear receives, then this rank's own sends: posted at once, or made
// persistent (`keep`) for the standing set, to be started after.
void LinearRun::post(bool keep) {
  const algos::Plan& plan = schedule_.mixed.plan;
  const std::vector<int>& recvs = schedule_.recvs_of[kLinear];
  const std::vector<int>& sends = schedule_.own_sends_of[kLinear];
  MpiRequests& requests = *requests_;
  requests.clear();
  requests.reserve(recvs.size() + sends.size());
  const bool hollow = blocks_.hollow;
  const auto recv = keep ? PMPI_Recv_init : PMPI_Irecv;
  const auto send = keep ? PMPI_Send_init : PMPI_Isend;
  for (const int i : recvs) {
    const algos::Recv& r = plan.recvs[static_cast<std::size_t>(i)];
    const auto slot = static_cast<std::size_t>(r.slot);
    const algos::ByteRange range = algos::share_bytes(r.share, blocks_.slot_bytes[slot]);
    const ByteMessage m(range.size());
    outcome_.note(recv(hollow ? nullptr : blocks_.slot_data[slot] + range.begin, m.count(), m.type(),
                       channel_.rank(r.peer), r.tag + channel_.tag_offset, channel_.comm, requests.add_plain()));
  }
  for (const int i : sends) {
    const algos::Send& s = plan.sends[static_cast<std::size_t>(i)];
    const std::size_t block = s.out_edge >= 0 ? static_cast<std::size_t>(s.out_edge) : 0;
    const algos::ByteRange range = algos::share_bytes(s.share, blocks_.send_size(block));
    const ByteMessage m(range.size());
    outcome_.note(send(hollow ? nullptr : blocks_.send(block) + range.begin, m.count(), m.type(), channel_.rank(s.peer),
                       s.tag + channel_.tag_offset, channel_.comm, requests.add_plain()));
  }
}

bool LinearRun::step(bool block) {
  if (finished_) return true;
  if (!requests_->complete_all(block, outcome_.first_error)) return false;
  finished_ = true;
  if (outcome_.first_error != MPI_SUCCESS) {
    if (on_standing_) standing_->release();  // a failed request may be freed already: none is trusted again
    return true;
  }
  // The receives were posted first, in this order (start()).
  const algos::Plan& plan = schedule_.mixed.plan;
  const std::vector<int>& recvs = schedule_.recvs_of[kLinear];
  for (std::size_t k = 0; k < recvs.size(); ++k) {
    const algos::Recv& r = plan.recvs[static_cast<std::size_t>(recvs[k])];
    const std::uint64_t expected =
        algos::share_bytes(r.share, blocks_.slot_bytes[static_cast<std::size_t>(r.slot)]).size();
    if (outcome_.came_short(status_bytes(requests_->status(k)), expected, r.peer)) outcome_.note(MPI_ERR_OTHER);
  }
  if (outcome_.first_error == MPI_SUCCESS && !blocks_.hollow)
    outcome_.note(engine::local_copies(schedule_, choice_, blocks_, HostTransport::copy_local));
  return true;
}

}  // namespace nbrcoll
