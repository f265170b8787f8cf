// The machine nbrcoll-model predicts for: a built-in one or a machine file
// (algos/cost_model.h's format, as nbrcoll-calibrate writes it).
#pragma once

#include <optional>
#include <string>

#include "algos/cost_model.h"

namespace nbrmodel {

struct LoadedMachine {
  nbrcoll::algos::MachineModel model;
  std::string description;  // "frontier (built-in)", "emulated.machine (file: name calibrated)"
};

// `spec` empty: the built-in machine named like `node`. Else a built-in
// name, else a file whose missing keys keep the values of the built-in
// named like `node` (or the first built-in). nullopt and `error` (one line)
// when there is no such machine, the file cannot be read or does not parse.
std::optional<LoadedMachine> load_machine(const std::string& spec, const std::string& node, std::string& error);

}  // namespace nbrmodel
