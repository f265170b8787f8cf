// libnbrcoll-hip.so: the device backend for AMD GPUs (built with hipcc). The
// shared part is backend_impl.h; here only pointer_info: the memory type and
// device from hipPointerGetAttributes, the range from hipMemGetAddressRange,
// the unique id from HIP_POINTER_ATTRIBUTE_BUFFER_ID.
#include "transport/device/gpu/backend_impl.h"

namespace nbrcoll_gpu {
namespace {

int backend_pointer_info(const void* p, nbrcoll_pointer_info* out) {
  *out = nbrcoll_pointer_info{};
  if (p == nullptr) return 0;

  hipPointerAttribute_t attr;
  memset(&attr, 0, sizeof attr);
  const hipError_t err = hipPointerGetAttributes(&attr, p);
  // Memory HIP does not know (plain malloc, stack) is an error meaning host.
  if (err == hipErrorInvalidValue) {
    (void)hipGetLastError();
    return 0;
  }
  if (err != hipSuccess) return fail("hipPointerGetAttributes", err);

    // hipMemoryType's values changed in ROCm 6 (before: Host 0 Device 1 Array 2
    // Unified 3; from 6.0 CUDA's: Host 1 Device 2 Array 10 Managed 3) and the
    // field was renamed. We compare with the enumerators of the header we were
    // built with, and the library we link (libamdhip64.so.<major>) has the same
    // major version, so the two always agree.
#if HIP_VERSION_MAJOR >= 6
  const hipMemoryType type = attr.type;
#else
  const hipMemoryType type = attr.memoryType;
#endif
  // Pinned, registered and managed memory are all addressable by the CPU.
  if (attr.isManaged != 0 || (type != hipMemoryTypeDevice && type != hipMemoryTypeArray)) return 0;

  hipDeviceptr_t base = nullptr;
  size_t size = 0;
  NBRCOLL_GPU_CALL(MemGetAddressRange, (&base, &size, const_cast<void*>(p)));
  // Zero first: some HIP versions write only 32 bits of the id.
  unsigned long long id = 0;
  NBRCOLL_GPU_CALL(PointerGetAttribute, (&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, const_cast<void*>(p)));

  out->is_device = 1;
  out->device = attr.device;
  out->buffer_id = id;
  out->base = base;
  out->size = size;
  return 0;
}

}  // namespace
}  // namespace nbrcoll_gpu
