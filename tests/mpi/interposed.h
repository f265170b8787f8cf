// Which library MPI_Neighbor_allgather resolves to in this process: the MPI
// tests use it to prove that nbrcoll (linked or preloaded) took the calls.
#pragma once

#include <dlfcn.h>

#include <string>

inline std::string resolved_library() {
  Dl_info info{};
  void* sym = dlsym(RTLD_DEFAULT, "MPI_Neighbor_allgather");
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

inline bool interposed() {
  return resolved_library().find("nbrcoll") != std::string::npos;
}
