#include "transport/linear_run.h"

#include "engine/engine.h"
#include "transport/byte_message.h"
#include "transport/host.h"
#include "transport/status_bytes.h"

namespace nbrcoll {

namespace {
constexpr auto kLinear = static_cast<std::size_t>(algos::Variant::kLinear);

// A send this small leaves MPI_Isend inline (Open MPI's shared-memory
// transport, btl_vader_max_inline_send: no request made or matched), a path
// MPI_Start of a persistent send never takes: on 2 ranks an exchange of
// 32-256 B took 0.3-0.7 us posted and 0.8-1.2 us started, where a started
// receive costs what a posted one does and a started send above 256 B 2-5%
// less (bench/results/small-sends). So a side of sends with one this small
// is posted, never kept; receives are kept whatever their size.
constexpr std::uint64_t kInlineSendBytes = 256;

// A kept message made (MPI_Recv_init, MPI_Send_init): held until its set is
// released (standing_messages.cpp).
void count_persistent(MPI_Request req) {
  if (req != MPI_REQUEST_NULL) report::note_made(report::Handle::kRequest);
}
}  // namespace

void LinearRun::start() {
  requests_.clear();
  requests_.reserve(schedule_.recvs_of[kLinear].size() + schedule_.own_sends_of[kLinear].size());
  recvs_kept_ = side(
      kept_.recvs, kept_.recvbuf, [this](MpiRequests& out, bool p) { post_recvs(out, p); }, [] { return true; });
  recv_count_ = requests_.size();
  sends_kept_ = side(
      kept_.sends, kept_.sendbuf, [this](MpiRequests& out, bool p) { post_sends(out, p); },
      [this] { return !has_inline_send(); });
}

// Some send of this rank small enough to leave MPI_Isend inline (kInlineSendBytes).
bool LinearRun::has_inline_send() const {
  const algos::Plan& plan = schedule_.mixed.plan;
  for (const int i : schedule_.own_sends_of[kLinear]) {
    const algos::Send& s = plan.sends[static_cast<std::size_t>(i)];
    const std::size_t block = s.out_edge >= 0 ? static_cast<std::size_t>(s.out_edge) : 0;
    if (algos::share_bytes(s.share, blocks_.send_size(block)).size() <= kInlineSendBytes) return true;
  }
  return false;
}

// One side's messages: its kept set started (made first where the last run
// had the same key), or posted plainly; their requests added to the run's.
// True where they are the kept set's. `worth_keeping` is asked once per key,
// when the set would be made; a set declined is not asked for again.
template <class Post, class WorthKeeping>
bool LinearRun::side(StandingMessages* kept, const void* buffer, Post post, WorthKeeping worth_keeping) {
  using Use = StandingMessages::Use;
  const StandingKey key{kept_.generation, buffer, channel_.comm, channel_.tag_offset};
  Use use = kept == nullptr || blocks_.hollow ? Use::kPost : kept->use_for(key);
  if (use == Use::kKeep && !worth_keeping()) {
    kept->decline();
    use = Use::kPost;
  }
  if (use == Use::kPost) {
    post(requests_, false);
    return false;
  }
  if (use == Use::kKeep) {
    const int before = outcome_.first_error;
    post(kept->rebuild(key), true);
    if (outcome_.first_error != before) {
      kept->release();  // the call fails as a posting error would
      return false;
    }
  }
  outcome_.note(kept->start());
  MpiRequests& set = kept->requests();
  for (std::size_t i = 0; i < set.size(); ++i) *requests_.add_plain(set.peer(i)) = set.request(i);
  return true;
}

// The linear receives, in plan order: posted at once, or made persistent.
void LinearRun::post_recvs(MpiRequests& out, bool persistent) {
  const algos::Plan& plan = schedule_.mixed.plan;
  const bool hollow = blocks_.hollow;
  const auto recv = persistent ? PMPI_Recv_init : PMPI_Irecv;
  for (const int i : schedule_.recvs_of[kLinear]) {
    const algos::Recv& r = plan.recvs[static_cast<std::size_t>(i)];
    const auto slot = static_cast<std::size_t>(r.slot);
    MPI_Request* req = out.add_plain(MessagePeer::from(r.peer));
    if (typed_ != nullptr && typed_->slots[slot].typed) {  // linear plans move whole blocks
      const TypedBuffer& t = typed_->slots[slot];
      outcome_.note(recv(const_cast<void*>(t.buf), t.count, t.type, channel_.rank(r.peer), r.tag + channel_.tag_offset,
                         channel_.comm, req));
    } else {
      const algos::ByteRange range = algos::share_bytes(r.share, blocks_.slot_bytes[slot]);
      const ByteMessage m(range.size());
      outcome_.note(recv(hollow ? nullptr : blocks_.slot_data[slot] + range.begin, m.count(), m.type(),
                         channel_.rank(r.peer), r.tag + channel_.tag_offset, channel_.comm, req));
    }
    if (persistent) count_persistent(*req);
  }
}

// This rank's own sends, in the schedule's order: posted at once, or made persistent.
void LinearRun::post_sends(MpiRequests& out, bool persistent) {
  const algos::Plan& plan = schedule_.mixed.plan;
  const bool hollow = blocks_.hollow;
  const auto send = persistent ? PMPI_Send_init : PMPI_Isend;
  for (const int i : schedule_.own_sends_of[kLinear]) {
    const algos::Send& s = plan.sends[static_cast<std::size_t>(i)];
    const std::size_t block = s.out_edge >= 0 ? static_cast<std::size_t>(s.out_edge) : 0;
    MPI_Request* req = out.add_plain(MessagePeer::to(s.peer));
    if (typed_ != nullptr && typed_->sends[block].typed) {
      const TypedBuffer& t = typed_->sends[block];
      outcome_.note(
          send(t.buf, t.count, t.type, channel_.rank(s.peer), s.tag + channel_.tag_offset, channel_.comm, req));
    } else {
      const algos::ByteRange range = algos::share_bytes(s.share, blocks_.send_size(block));
      const ByteMessage m(range.size());
      outcome_.note(send(hollow ? nullptr : blocks_.send(block) + range.begin, m.count(), m.type(),
                         channel_.rank(s.peer), s.tag + channel_.tag_offset, channel_.comm, req));
    }
    if (persistent) count_persistent(*req);
  }
}

bool LinearRun::step(bool block) {
  if (finished_) return true;
  if (!requests_.complete_all(block, outcome_.first_error, recvs_kept_ || sends_kept_)) return false;
  finished_ = true;
  if (outcome_.first_error != MPI_SUCCESS) {
    // A failed request may be freed already: no kept one is trusted again.
    if (recvs_kept_) kept_.recvs->release_after(requests_.from(0));
    if (sends_kept_) kept_.sends->release_after(requests_.from(recv_count_));
    return true;
  }
  // The receives were posted first, in this order (start()).
  const algos::Plan& plan = schedule_.mixed.plan;
  const std::vector<int>& recvs = schedule_.recvs_of[kLinear];
  for (std::size_t k = 0; k < recvs.size(); ++k) {
    const algos::Recv& r = plan.recvs[static_cast<std::size_t>(recvs[k])];
    const std::uint64_t expected =
        algos::share_bytes(r.share, blocks_.slot_bytes[static_cast<std::size_t>(r.slot)]).size();
    if (outcome_.came_short(status_bytes(requests_.status(k)), expected, r.peer)) outcome_.note(MPI_ERR_OTHER);
  }
  if (outcome_.first_error == MPI_SUCCESS && !blocks_.hollow) {
    outcome_.note(typed_ != nullptr ? typed_local_copies()
                                    : engine::local_copies(schedule_, choice_, blocks_, HostTransport::copy_local));
  }
  return true;
}

// The local copies between typed blocks: a memory copy where both lie in
// place, else packed and unpacked by their types.
int LinearRun::typed_local_copies() {
  return engine::for_each_local_copy(schedule_, choice_, [this](const algos::LocalCopy& c) {
    const engine::CopyEnds e = engine::copy_ends(c);
    const char* from_data = e.own ? blocks_.send_data[e.from] : blocks_.slot_data[e.from];
    if (from_data != nullptr && blocks_.slot_data[e.to] != nullptr)
      return engine::copy_one_by_bytes(blocks_, e, HostTransport::copy_local);
    const std::uint64_t from_bytes = e.own ? blocks_.send_size(e.from) : blocks_.slot_bytes[e.from];
    return copy_typed(e.own ? typed_->sends[e.from] : typed_->slots[e.from], from_bytes, typed_->slots[e.to],
                      blocks_.slot_bytes[e.to], copy_stage_);
  });
}

}  // namespace nbrcoll
