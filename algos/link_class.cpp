#include "algos/link_class.h"

namespace nbrcoll::algos {

LinkClass classify_link(const std::vector<RankPlace>& places, const NodeMatrices& node, int from, int to) {
  const RankPlace& a = places[static_cast<std::size_t>(from)];
  const RankPlace& b = places[static_cast<std::size_t>(to)];
  if (a.node != b.node) return LinkClass::kNetwork;
  if (a.device == b.device) return LinkClass::kSameDevice;
  if (a.package == b.package) return LinkClass::kSamePackage;
  const bool in_range = a.device < node.devices && b.device < node.devices;
  if (in_range && node.link(a.device, b.device) > 0) return LinkClass::kLinked;
  return LinkClass::kMultiHop;
}

}  // namespace nbrcoll::algos
