// Reading the run report (NBRCOLL_REPORT=<file>, src/report/) that world
// rank 0 wrote inside MPI_Finalize: the MPI test programs that check it
// read it after MPI_Finalize returns.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/mpi/mpi_check.h"

namespace nbt {

// NBRCOLL_REPORT naming a file (not 0, 1 or unset).
inline const char* report_file() {
  const char* v = std::getenv("NBRCOLL_REPORT");
  if (v == nullptr) return nullptr;
  const std::string s(v);
  return s.empty() || s == "0" || s == "1" ? nullptr : v;
}

// The report's lines, without the prefix; empty where the file is missing.
inline std::vector<std::string> report_lines(const char* path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  const std::string prefix = "nbrcoll report: ";
  for (std::string l; std::getline(in, l);) {
    check(l.rfind(prefix, 0) == 0, "every report line is prefixed: " + l);
    lines.push_back(l.substr(std::min(l.size(), prefix.size())));
  }
  return lines;
}

// The line that starts with `head` (after leading blanks), from `head` on;
// a failed check and "" where there is none.
inline std::string report_line(const std::vector<std::string>& lines, const std::string& head) {
  for (const std::string& l : lines) {
    const std::size_t at = l.find_first_not_of(' ');
    if (at != std::string::npos && l.compare(at, head.size(), head) == 0) return l.substr(at);
  }
  check(false, "a report line starting '" + head + "'");
  return "";
}

// The numbers of the line that starts with `head` (after leading blanks).
inline std::vector<long> numbers_after(const std::vector<std::string>& lines, const std::string& head) {
  const std::string line = report_line(lines, head);
  std::istringstream rest(line.substr(std::min(line.size(), head.size())));
  std::vector<long> n;
  for (std::string word; rest >> word;) {
    char* end = nullptr;
    const long v = std::strtol(word.c_str(), &end, 10);
    if (end != word.c_str()) n.push_back(v);
  }
  return n;
}

}  // namespace nbt
