#include "engine/bundle_store.h"

#include <algorithm>
#include <cstring>

namespace nbrcoll::engine {

void GrowBuffer::ensure(std::size_t bytes, std::size_t keep) {
  if (bytes <= capacity_) return;
  auto grown = std::make_unique_for_overwrite<char[]>(bytes);  // no zero fill
  if (keep > 0) std::memcpy(grown.get(), data_.get(), std::min(keep, capacity_));
  data_ = std::move(grown);
  capacity_ = bytes;
}

}  // namespace nbrcoll::engine
