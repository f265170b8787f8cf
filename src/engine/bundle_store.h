// The bundles of one call (the aggregated variant moves the blocks of many
// edges in one message): each received one (header + payload, and per piece
// its size as the header says and where it starts in the payload) and each
// sent one. Kept with the call's scratch and reused by the next call, so
// only the first call of a size pays for pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace nbrcoll::engine {

// A byte buffer that only grows and is never zero-filled.
class GrowBuffer {
 public:
  [[nodiscard]] char* data() { return data_.get(); }
  [[nodiscard]] const char* data() const { return data_.get(); }
  // At least `bytes`; the first `keep` bytes survive a growth.
  void ensure(std::size_t bytes, std::size_t keep = 0);

 private:
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;
};

struct BundleStore {
  struct In {
    GrowBuffer data;
    std::vector<std::uint64_t> size;
    std::vector<std::uint64_t> offset;
  };
  std::vector<In> in;
  std::vector<GrowBuffer> out;
};

}  // namespace nbrcoll::engine
