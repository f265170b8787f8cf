// Device buffers for the benchmark, through a device backend plugin (the same
// plugins libnbrcoll loads): allocation and host <-> device copies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "transport/device/backend_abi.h"

namespace nbrbench {

// A device failure on this rank alone (allocation, copy): the other ranks may
// already be inside a collective, so the benchmark aborts the job.
struct DeviceFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class DeviceBuffers {
 public:
  // Loads `plugin`, picks device rank % count. Throws DeviceFailure.
  DeviceBuffers(const std::string& plugin, int rank);
  [[nodiscard]] const nbrcoll_device_backend& backend() const { return *b_; }

 private:
  const nbrcoll_device_backend* b_ = nullptr;
};

// One device allocation, freed with the object.
class DeviceBlock {
 public:
  DeviceBlock(const DeviceBuffers& dev, std::size_t bytes);
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;
  ~DeviceBlock();
  [[nodiscard]] void* data() const { return p_; }
  void upload(const void* host, std::size_t bytes, std::size_t offset = 0) const;
  void download(void* host, std::size_t bytes, std::size_t offset = 0) const;

 private:
  const nbrcoll_device_backend& b_;
  void* p_ = nullptr;
};

}  // namespace nbrbench
