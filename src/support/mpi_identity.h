// Which MPI this process runs, against the one libnbrcoll was built for; and
// whether that MPI takes device buffers, asked by each MPI's own name.
//
// The wrong-MPI check runs by itself when libnbrcoll.so is loaded (a
// constructor in mpi_identity.cpp): a libnbrcoll built for Open MPI preloaded
// into an MPICH program (or the reverse) would hand the MPI handles of one
// ABI to the other and crash somewhere inside it. Instead the process stops
// before main with one line on stderr (world rank 0 only, as the launcher
// numbers it) and exit status 1. Processes that run no MPI of their own (the
// launcher, shells) find the MPI libnbrcoll itself needs and pass.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace nbrcoll {

enum class MpiFamily { kOpenMpi, kMpich, kUnknown };

// From MPI_Get_library_version's text: "Open MPI ..." is Open MPI; MPICH and
// the MPICH-ABI family (MVAPICH, Intel MPI, Cray MPICH) are MPICH.
MpiFamily mpi_family(const std::string& library_version);

// Empty when a library built for `built` (e.g. "openmpi 4.1.4", as
// NbrcollMpiFlavour.cmake names it) can work under the MPI whose
// MPI_Get_library_version text is `running` (loaded from `running_path`);
// else the one-line refusal naming nbrcoll and both MPIs. Pure.
std::string mpi_mismatch_message(const std::string& built, const std::string& running, const std::string& running_path);

// Does the MPI take device buffers of `runtime` ("cuda" or "hip")? Asks, in
// this order, what the MPI in this process defines: MPIX_Query_cuda_support
// (Open MPI, MPICH), or MPIX_Query_rocm_support (Open MPI 5) then
// MPIX_Query_hip_support (MPICH >= 4.1) for HIP, then MPICH's
// MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA = 0 / _HIP = 2). The first one
// found answers; none found: false. `lookup` finds a symbol (default:
// dlsym(RTLD_DEFAULT, name)); call after MPI_Init.
using SymbolLookup = std::function<void*(const char*)>;
bool mpi_reports_gpu_support(const char* runtime, const SymbolLookup& lookup = {});

// Whether other threads of this process may be inside the MPI at the same
// time: MPI_THREAD_MULTIPLE, or a level the MPI cannot tell. Asked once,
// after MPI_Init.
bool mpi_threads_concurrent();

// The thread level the application was told at MPI_Init(_thread) where
// nbrcoll asked the MPI for a higher one (its progress thread needs
// MPI_THREAD_MULTIPLE: call/progress_thread.h); MPI_Query_thread answers
// it. Empty otherwise: the MPI's own level is the application's.
void set_told_thread_level(int level);
std::optional<int> told_thread_level();

}  // namespace nbrcoll
