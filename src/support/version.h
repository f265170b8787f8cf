// The library's version and what this build was made with (nbrcoll-info).
#pragma once

namespace nbrcoll {

struct BuildInfo {
  const char* version;  // "0.1.0"
  const char* mpi;      // the MPI compiled against: "openmpi 4.1.4", "mpich 4.0.2"
  bool hwloc;           // hwloc topology source linked
  bool rocm_smi;        // ROCm SMI topology source compiled (library opened at run time)
  bool hip_plugin;      // libnbrcoll-hip.so built alongside
  bool cuda_plugin;     // libnbrcoll-cuda.so built alongside
};

const BuildInfo& build_info();

}  // namespace nbrcoll
