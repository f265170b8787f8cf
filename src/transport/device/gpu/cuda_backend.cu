// libnbrcoll-cuda.so: the device backend for NVIDIA GPUs. The shared part is
// backend_impl.h; here only pointer_info, asked of the CUDA driver
// (cuPointerGetAttributes), which also gives the buffer id and the range.
#include "transport/device/gpu/backend_impl.h"

namespace nbrcoll_gpu {
namespace {

int driver_fail(const char* what, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS) name = "unknown CUresult";
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS) text = "";
  snprintf(t_error, sizeof t_error, "cuda: %s failed: %s (%s)", what, name, text);
  return static_cast<int>(r) != 0 ? static_cast<int>(r) : -1;
}

// cuInit once per process (the runtime calls it too; it is idempotent).
CUresult driver_init() {
  static const CUresult r = cuInit(0);
  return r;
}

int backend_pointer_info(const void* p, nbrcoll_pointer_info* out) {
  *out = nbrcoll_pointer_info{};
  if (p == nullptr) return 0;
  if (const CUresult r = driver_init(); r != CUDA_SUCCESS) return driver_fail("cuInit", r);

  unsigned int type = 0;
  unsigned int managed = 0;
  int ordinal = -1;
  unsigned long long id = 0;
  CUdeviceptr start = 0;
  size_t size = 0;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,      CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,   CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                 CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  void* data[] = {&type, &managed, &ordinal, &id, &start, &size};
  static_assert(sizeof attrs / sizeof attrs[0] == sizeof data / sizeof data[0]);
  const CUresult r =
      cuPointerGetAttributes(sizeof data / sizeof data[0], attrs, data, reinterpret_cast<CUdeviceptr>(p));
  // Memory CUDA does not know (plain malloc, stack) is host memory. The
  // batched call reports it as success with type 0; older drivers and the
  // single-attribute call report CUDA_ERROR_INVALID_VALUE (or INVALID_CONTEXT).
  if (r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_INVALID_CONTEXT) return 0;
  if (r != CUDA_SUCCESS) return driver_fail("cuPointerGetAttributes", r);
  // Pinned, registered and managed memory are all addressable by the CPU.
  if (managed != 0 || (type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_ARRAY)) return 0;

  out->is_device = 1;
  out->device = ordinal;
  out->buffer_id = id;
  out->base = reinterpret_cast<void*>(start);
  out->size = size;
  return 0;
}

}  // namespace
}  // namespace nbrcoll_gpu
