#include "algos/plan_stats.h"

namespace nbrcoll::algos {

std::uint64_t PlanStats::messages() const {
  std::uint64_t n = 0;
  for (const LinkTally& t : sent) n += t.messages;
  return n;
}

std::uint64_t PlanStats::bytes() const {
  std::uint64_t n = 0;
  for (const LinkTally& t : sent) n += t.bytes;
  return n;
}

PlanStats& PlanStats::operator+=(const PlanStats& other) {
  for (std::size_t c = 0; c < sent.size(); ++c) {
    sent[c].messages += other.sent[c].messages;
    sent[c].bytes += other.sent[c].bytes;
  }
  copies += other.copies;
  copy_bytes += other.copy_bytes;
  return *this;
}

PlanStats compute_stats(const Plan& plan, const std::function<std::uint64_t(int origin)>& block_of,
                        const std::vector<int>* in) {
  PlanStats stats;
  for (const Send& s : plan.sends) {
    const std::uint64_t bytes = share_bytes(s.share, block_of(s.origin)).size();
    if (bytes == 0) continue;
    LinkTally& t = stats.sent[static_cast<std::size_t>(s.link)];
    ++t.messages;
    t.bytes += bytes;
  }
  // Bundles: every piece present (block_of its origin), header included.
  for (const BundleSend& b : plan.bundle_sends) {
    std::uint64_t payload = 0;
    for (std::size_t k = 0; k < b.pieces.size(); ++k) {
      if (b.from[k].bundle != kPieceAbsent) payload += block_of(b.pieces[k].origin);
    }
    LinkTally& t = stats.sent[static_cast<std::size_t>(b.link)];
    t.messages += static_cast<std::uint64_t>(bundle_messages(b.pieces.size(), payload));
    t.bytes += bundle_header_bytes(b.pieces.size()) + payload;
  }
  for (const LocalCopy& c : plan.copies) {
    ++stats.copies;
    if (c.from_slot < 0) {
      stats.copy_bytes += block_of(plan.rank);
    } else if (in != nullptr && c.to_slot < static_cast<int>(in->size())) {
      stats.copy_bytes += block_of((*in)[static_cast<std::size_t>(c.to_slot)]);
    }
  }
  return stats;
}

PlanStats compute_stats(const Plan& plan, std::uint64_t block_bytes) {
  PlanStats stats = compute_stats(plan, [block_bytes](int) { return block_bytes; });
  stats.copy_bytes = stats.copies * block_bytes;  // every block has that size
  return stats;
}

std::string format_stats(const PlanStats& stats) {
  std::string out;
  for (int c = 0; c < kLinkClassCount; ++c) {
    const LinkTally& t = stats.sent[static_cast<std::size_t>(c)];
    if (t.messages == 0) continue;
    if (!out.empty()) out += ", ";
    out += link_class_name(static_cast<LinkClass>(c));
    out += " " + std::to_string(t.messages) + " msg/" + std::to_string(t.bytes) + " B";
  }
  if (stats.copies > 0) {
    if (!out.empty()) out += ", ";
    out += "copies " + std::to_string(stats.copies) + "/" + std::to_string(stats.copy_bytes) + " B";
  }
  return out.empty() ? "nothing" : out;
}

}  // namespace nbrcoll::algos
