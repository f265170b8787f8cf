# External dependencies. MPI is required; the GPU and ROCm SMI pieces follow
# the AUTO|ON|OFF options and say in one status line what they decided.
find_package(MPI REQUIRED COMPONENTS C)
find_package(Threads REQUIRED)
include(NbrcollMpiFlavour)
# We use the C API from C++: keep the deprecated MPI C++ bindings out.
add_compile_definitions(OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)

# nbrcoll_resolve_option(<VAR> <found> <what>): AUTO -> found, ON -> must be found.
function(nbrcoll_resolve_option var found what)
  string(TOUPPER "${${var}}" mode)
  if(mode STREQUAL "ON" AND NOT found)
    message(FATAL_ERROR "nbrcoll: ${var}=ON but ${what} was not found")
  endif()
  if(mode STREQUAL "OFF")
    set(enabled FALSE)
  elseif(mode STREQUAL "ON" OR mode STREQUAL "AUTO")
    set(enabled ${found})
  else()
    message(FATAL_ERROR "nbrcoll: ${var} must be AUTO, ON or OFF (got '${${var}}')")
  endif()
  if(enabled)
    message(STATUS "nbrcoll: ${var}: on (${what} found)")
  else()
    message(STATUS "nbrcoll: ${var}: off (${mode}; ${what}: not found or not wanted)")
  endif()
  set(${var}_ENABLED ${enabled} PARENT_SCOPE)
endfunction()

# ROCm SMI (Debian: librocm-smi-dev): its header only. The library is opened
# at run time where present (topo/rsmi_provider.cpp), never linked, so
# libnbrcoll loads on nodes without it.
find_path(ROCM_SMI_INCLUDE_DIR rocm_smi/rocm_smi.h PATHS /opt/rocm/include)
if(ROCM_SMI_INCLUDE_DIR)
  set(_rsmi_found TRUE)
else()
  set(_rsmi_found FALSE)
endif()
nbrcoll_resolve_option(NBRCOLL_WITH_ROCM_SMI ${_rsmi_found} "the ROCm SMI header")

# hwloc (Debian: libhwloc-dev), optional: CPU-only topology grouping.
find_package(PkgConfig QUIET)
set(_hwloc_found FALSE)
if(PkgConfig_FOUND)
  pkg_check_modules(HWLOC QUIET IMPORTED_TARGET hwloc)
  if(HWLOC_FOUND)
    set(_hwloc_found TRUE)
  endif()
endif()
set(NBRCOLL_HAVE_HWLOC ${_hwloc_found})
message(STATUS "nbrcoll: hwloc: ${_hwloc_found}")

# HIP (Debian: hipcc, libamdhip64-dev) and CUDA (nvcc).
find_program(NBRCOLL_HIPCC hipcc)
find_path(NBRCOLL_HIP_INCLUDE_DIR hip/hip_runtime.h PATHS /opt/rocm/include)
if(NBRCOLL_HIPCC AND NBRCOLL_HIP_INCLUDE_DIR)
  set(_hip_found TRUE)
else()
  set(_hip_found FALSE)
endif()
nbrcoll_resolve_option(NBRCOLL_WITH_HIP ${_hip_found} "hipcc and HIP headers")

include(CheckLanguage)
check_language(CUDA)
if(CMAKE_CUDA_COMPILER)
  set(_cuda_found TRUE)
else()
  set(_cuda_found FALSE)
endif()
nbrcoll_resolve_option(NBRCOLL_WITH_CUDA ${_cuda_found} "a CUDA compiler")
if(NBRCOLL_WITH_CUDA_ENABLED)
  # Ampere and Hopper (A100, H100/H200) unless the user chose (-D or CUDAARCHS).
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    set(CMAKE_CUDA_ARCHITECTURES "80;90" CACHE STRING "CUDA architectures of the CUDA device backend")
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
endif()
# The backends themselves are built in src/transport/device/gpu.
