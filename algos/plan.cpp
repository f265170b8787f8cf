#include "plan.h"

namespace nbrcoll::algos {
namespace {
__extension__ typedef unsigned __int128 Wide;  // GCC/Clang: exact block * w
}  // namespace

std::uint64_t split_point(std::uint64_t block, std::uint32_t w, std::uint32_t total) {
  if (total == 0 || w >= total) return block;
  const auto exact = static_cast<std::uint64_t>(static_cast<Wide>(block) * w / total);
  return exact - exact % kSplitAlignment;
}

ByteRange share_bytes(const Share& share, std::uint64_t block) {
  return {split_point(block, share.lo, share.total), split_point(block, share.hi, share.total)};
}

const char* link_class_name(LinkClass c) {
  switch (c) {
    case LinkClass::kSameDevice:
      return "same-device";
    case LinkClass::kSamePackage:
      return "same-package";
    case LinkClass::kLinked:
      return "xgmi-linked";
    case LinkClass::kMultiHop:
      return "multi-hop";
    case LinkClass::kNetwork:
      return "network";
  }
  return "?";
}

}  // namespace nbrcoll::algos
