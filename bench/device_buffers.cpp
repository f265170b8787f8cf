#include "device_buffers.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace nbrbench {

DeviceBuffers::DeviceBuffers(const std::string& plugin, int rank) {
  void* lib = dlopen(plugin.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) throw std::runtime_error("--device: cannot load " + plugin + ": " + dlerror());
  auto entry = reinterpret_cast<nbrcoll_device_backend_entry>(dlsym(lib, NBRCOLL_DEVICE_BACKEND_ENTRY));
  b_ = entry != nullptr ? entry() : nullptr;
  if (b_ == nullptr || b_->abi_version != NBRCOLL_DEVICE_ABI_VERSION)
    throw std::runtime_error("--device: " + plugin + " is not a device backend of this ABI version");
  int count = 0;
  if (b_->device_count(&count) != 0 || count == 0) throw std::runtime_error("--device: no device found");
  if (b_->set_device(rank % count) != 0) throw std::runtime_error(std::string("--device: ") + b_->last_error());
}

bool DeviceBuffers::mpi_gpu_aware() const {
  if (const char* v = std::getenv("NBRCOLL_GPU_AWARE"); v != nullptr && std::strcmp(v, "auto") != 0)
    return std::strcmp(v, "1") == 0;
  const char* query = std::strcmp(b_->name, "cuda") == 0  ? "MPIX_Query_cuda_support"
                      : std::strcmp(b_->name, "hip") == 0 ? "MPIX_Query_rocm_support"
                                                          : nullptr;
  if (query == nullptr) return false;
  auto fn = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, query));
  return fn != nullptr && fn() == 1;
}

DeviceBlock::DeviceBlock(const DeviceBuffers& dev, std::size_t bytes) : b_(dev.backend()) {
  if (b_.device_malloc(&p_, bytes == 0 ? 1 : bytes) != 0)
    throw std::runtime_error(std::string("device allocation failed: ") + b_.last_error());
}

DeviceBlock::~DeviceBlock() {
  b_.device_free(p_);
}

void DeviceBlock::upload(const void* host, std::size_t bytes, std::size_t offset) const {
  if (bytes > 0) b_.copy_to_device_sync(static_cast<char*>(p_) + offset, host, bytes);
}

void DeviceBlock::download(void* host, std::size_t bytes, std::size_t offset) const {
  if (bytes > 0) b_.copy_to_host_sync(host, static_cast<const char*>(p_) + offset, bytes);
}

}  // namespace nbrbench
