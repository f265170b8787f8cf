// Which library an MPI symbol resolves to in this process: the MPI tests use
// it to prove that nbrcoll (linked or preloaded) took the calls.
#pragma once

#include <dlfcn.h>

#include <string>

inline std::string resolved_library(const char* symbol = "MPI_Neighbor_allgather") {
  Dl_info info{};
  void* sym = dlsym(RTLD_DEFAULT, symbol);
  if (sym == nullptr || dladdr(sym, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

inline bool interposed(const char* symbol = "MPI_Neighbor_allgather") {
  return resolved_library(symbol).find("nbrcoll") != std::string::npos;
}
