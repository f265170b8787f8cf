#include "bench/device_buffers.h"

#include <stdexcept>

#include "transport/device/open_backend.h"

namespace nbrbench {

DeviceBuffers::DeviceBuffers(const std::string& plugin, int rank) {
  const nbrcoll_gpu::OpenedBackend opened = nbrcoll_gpu::open_backend(plugin);
  if (opened.table == nullptr) throw DeviceFailure("--device: " + opened.error);
  b_ = opened.table;
  int count = 0;
  if (b_->device_count(&count) != 0 || count == 0) throw DeviceFailure("--device: no device found");
  if (b_->set_device(rank % count) != 0) throw DeviceFailure(std::string("--device: ") + b_->last_error());
}

DeviceBlock::DeviceBlock(const DeviceBuffers& dev, std::size_t bytes) : b_(dev.backend()) {
  if (b_.device_malloc(&p_, bytes == 0 ? 1 : bytes) != 0)
    throw DeviceFailure(std::string("device allocation failed: ") + b_.last_error());
}

DeviceBlock::~DeviceBlock() {
  b_.device_free(p_);
}

void DeviceBlock::upload(const void* host, std::size_t bytes, std::size_t offset) const {
  if (bytes > 0 && b_.copy_to_device_sync(static_cast<char*>(p_) + offset, host, bytes) != 0)
    throw DeviceFailure(std::string("copy to device failed: ") + b_.last_error());
}

void DeviceBlock::download(void* host, std::size_t bytes, std::size_t offset) const {
  if (bytes > 0 && b_.copy_to_host_sync(host, static_cast<const char*>(p_) + offset, bytes) != 0)
    throw DeviceFailure(std::string("copy to host failed: ") + b_.last_error());
}

}  // namespace nbrbench
