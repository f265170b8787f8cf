// Reference data for the topo tests, typed in from shared/data/topologies.md
// (independently of topo/models.cpp, so a typo there shows up here).
#pragma once

#include <string>
#include <vector>

namespace topo_test {

extern const std::vector<int> kFrontierLinks, kFrontierHops, kFrontierPackage, kFrontierNuma;
extern const std::vector<int> kMi250Links, kMi250Hops;

// An RCCL-style XML of a Frontier node (bus ids c1, c6, c9, ... for GCD 0..7).
std::string frontier_xml();

// A file in a fresh temporary directory holding `text`; returns its path.
std::string write_temp(const std::string& name, const std::string& text);

}  // namespace topo_test
