#include "bench/model/model_machine.h"

#include <fstream>
#include <sstream>

namespace nbrmodel {

namespace algos = nbrcoll::algos;

std::optional<LoadedMachine> load_machine(const std::string& spec, const std::string& node, std::string& error) {
  if (spec.empty()) {
    if (auto m = algos::builtin_machine(node)) return LoadedMachine{*m, node + " (built-in)"};
    error = "no built-in machine is named like --node " + node + "; give --machine NAME or FILE";
    return std::nullopt;
  }
  if (auto m = algos::builtin_machine(spec)) return LoadedMachine{*m, spec + " (built-in)"};
  std::ifstream in(spec);
  if (!in) {
    std::string names;
    for (const std::string& n : algos::builtin_machine_names()) names += (names.empty() ? "" : ", ") + n;
    error = "--machine: '" + spec + "' is neither a built-in machine (" + names + ") nor a readable file";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const auto base = algos::builtin_machine(node).value_or(*algos::builtin_machine(algos::builtin_machine_names()[0]));
  auto m = algos::parse_machine(text.str(), base, error);
  if (!m) {
    error = spec + ": " + error;
    return std::nullopt;
  }
  return LoadedMachine{*m, spec + " (file: name " + m->name + ")"};
}

}  // namespace nbrmodel
