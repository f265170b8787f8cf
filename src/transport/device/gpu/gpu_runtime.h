// The few CUDA / HIP runtime names the device backends use, behind one
// spelling: GPU(Malloc) is cudaMalloc or hipMalloc, and so on. The build
// defines NBRCOLL_GPU_CUDA (nvcc) or NBRCOLL_GPU_HIP (hipcc).
#pragma once

#if defined(NBRCOLL_GPU_CUDA)

#include <cuda.h>
#include <cuda_runtime.h>

#define GPU(name) cuda##name
#define GPU_PREFIX "cuda"
#define GPU_BACKEND_NAME "cuda"
#define GPU_ATTR_SM_COUNT cudaDevAttrMultiProcessorCount
#define GPU_HOST_ALLOC(p, bytes) cudaHostAlloc(p, bytes, cudaHostAllocPortable)
#define GPU_HOST_ALLOC_NAME "cudaHostAlloc"
#define GPU_HOST_FREE(p) cudaFreeHost(p)
#define GPU_HOST_FREE_NAME "cudaFreeHost"

#elif defined(NBRCOLL_GPU_HIP)

#include <hip/hip_runtime.h>

#define GPU(name) hip##name
#define GPU_PREFIX "hip"
#define GPU_BACKEND_NAME "hip"
#define GPU_ATTR_SM_COUNT hipDeviceAttributeMultiprocessorCount
#define GPU_HOST_ALLOC(p, bytes) hipHostMalloc(p, bytes, hipHostMallocPortable)
#define GPU_HOST_ALLOC_NAME "hipHostMalloc"
#define GPU_HOST_FREE(p) hipHostFree(p)
#define GPU_HOST_FREE_NAME "hipHostFree"

#else
#error "define NBRCOLL_GPU_CUDA or NBRCOLL_GPU_HIP"
#endif

// "cudaMalloc" / "hipMalloc" for error messages.
#define GPU_NAME(name) GPU_PREFIX #name
