// load_topology: turns NBRCOLL_TOPO into a NodeTopology (selection rule in README.md).
#include <cctype>
#include <charconv>
#include <exception>

#include "topo/file_provider.h"
#include "topo/models.h"
#include "topo/node_topology.h"
#include "topo/providers.h"
#include "topo/validate.h"

namespace nbrcoll::topo {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

LoadResult fail(std::string why) {
  return {flat_topology(1), std::move(why)};
}

LoadResult probe(bool (*fn)(NodeTopology&, std::string&)) {
  NodeTopology t;
  std::string why;
  if (fn(t, why)) return {std::move(t), {}};
  return fail(why);
}

// auto: the GPUs ROCm SMI sees, else the NUMA nodes hwloc sees, else flat(1).
// Failures here are expected on most machines and stay silent.
LoadResult automatic() {
  NodeTopology t;
  std::string why;
  if (probe_rocm_smi(t, why) || probe_hwloc(t, why)) return {std::move(t), {}};
  return {flat_topology(1), {}};
}

LoadResult load(const std::string& raw) {
  const std::string spec = trim(raw);
  const std::string key = lower(spec);
  if (key.empty() || key == "auto") return automatic();
  if (key == "flat") return {flat_topology(1), {}};
  if (key.rfind("flat:", 0) == 0) {
    int n = 0;
    const char* b = spec.data() + 5;
    const char* e = spec.data() + spec.size();
    auto [p, ec] = std::from_chars(b, e, n);
    if (ec != std::errc{} || p != e || n < 1 || n > kMaxDevices)
      return fail("'" + spec + "': flat:N needs N in [1, " + std::to_string(kMaxDevices) + "]");
    return {flat_topology(n), {}};
  }
  if (key == "rocm-smi" || key == "rsmi") return probe(probe_rocm_smi);
  if (key == "hwloc") return probe(probe_hwloc);
  const std::string name = key.rfind("model:", 0) == 0 ? key.substr(6) : key;
  if (auto m = builtin_model(name)) return {std::move(*m), {}};
  if (looks_like_file(spec)) return load_topology_file(spec);
  std::string names;
  for (const std::string& n : model_names()) names += (names.empty() ? "" : ", ") + n;
  return fail("unknown topology '" + spec + "': expected auto, flat, flat:N, rocm-smi, hwloc, a model (" + names +
              ") or a file path");
}

}  // namespace

LoadResult load_topology(const std::string& spec) {
  // This runs inside the user's MPI program: nothing may escape.
  try {
    return load(spec);
  } catch (const std::exception& e) {
    return fail(std::string("topology '") + spec + "': " + e.what());
  } catch (...) {
    return fail("topology '" + spec + "': unexpected failure");
  }
}

}  // namespace nbrcoll::topo
