// machine_file_check FILE [NAME [LINE...]]: the file is a complete machine
// file (algos/cost_model.h's format): it parses, every key is present (two
// different bases give the same machine), every number is positive (parse
// refuses others; burst and floor may be 0), its name is NAME and each LINE starts one of its lines.
// Exit 0 or 1.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "algos/cost_model.h"

namespace algos = nbrcoll::algos;

namespace {

bool same(const algos::MachineModel& a, const algos::MachineModel& b) {
  for (int c = 0; c < algos::kLinkClassCount; ++c) {
    const auto u = static_cast<std::size_t>(c);
    if (a.link[u].alpha_us != b.link[u].alpha_us || a.link[u].bytes_per_us != b.link[u].bytes_per_us) return false;
  }
  return a.name == b.name && a.nic_bytes_per_us == b.nic_bytes_per_us && a.copy_bytes_per_us == b.copy_bytes_per_us &&
         a.cores == b.cores && a.burst_bytes == b.burst_bytes && a.floor_us == b.floor_us;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: machine_file_check FILE [NAME [LINE...]]\n");
    return 1;
  }
  std::ifstream in(argv[1]);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    std::fprintf(stderr, "machine_file_check: cannot read %s\n", argv[1]);
    return 1;
  }
  algos::MachineModel other = *algos::builtin_machine("frontier");
  other.name = "other";
  other.burst_bytes = 1;  // the built-ins' 0 would hide a file without these keys
  other.floor_us = 1;
  std::string error;
  const auto a = algos::parse_machine(text.str(), algos::MachineModel{}, error);
  const auto b = algos::parse_machine(text.str(), other, error);
  if (!a || !b) {
    std::fprintf(stderr, "machine_file_check: %s: %s\n", argv[1], error.c_str());
    return 1;
  }
  if (!same(*a, *b)) {
    std::fprintf(stderr, "machine_file_check: %s lacks keys (its machine depends on the base)\n", argv[1]);
    return 1;
  }
  if (argc > 2 && a->name != argv[2]) {
    std::fprintf(stderr, "machine_file_check: name '%s', expected '%s'\n", a->name.c_str(), argv[2]);
    return 1;
  }
  for (int i = 3; i < argc; ++i) {
    if (("\n" + text.str()).find("\n" + std::string(argv[i])) == std::string::npos) {
      std::fprintf(stderr, "machine_file_check: %s has no line starting '%s'\n", argv[1], argv[i]);
      return 1;
    }
  }
  std::printf("machine_file_check: %s: complete machine '%s'\n", argv[1], a->name.c_str());
  return 0;
}
