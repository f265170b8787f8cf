#include "topo/file_provider.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "topo/rccl_xml.h"
#include "topo/text_format.h"

namespace nbrcoll::topo {
namespace {

constexpr long kMaxFileBytes = 16L << 20;

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Reads the whole file; returns "" or an error.
std::string slurp(const std::string& path, std::string& out) {
  // Plain C stdio: no exceptions, and errno tells the reason.
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return "cannot open topology file '" + path + "': " + std::strerror(errno);
  if (!is_regular_file(path)) {
    std::fclose(f);
    return "topology file '" + path + "' is not a regular file";
  }
  char buf[65536];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
    if (static_cast<long>(out.size() + got) > kMaxFileBytes) {
      std::fclose(f);
      return "topology file '" + path + "' is larger than 16 MiB";
    }
    out.append(buf, got);
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return "cannot read topology file '" + path + "'";
  return {};
}

}  // namespace

bool looks_like_file(const std::string& spec) {
  return spec.find('/') != std::string::npos || ends_with(spec, ".txt") || ends_with(spec, ".topo") ||
         ends_with(spec, ".xml") || is_regular_file(spec);
}

LoadResult load_topology_file(const std::string& path) {
  std::string text;
  if (std::string err = slurp(path, text); !err.empty()) return {flat_topology(1), err};
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool xml = ends_with(path, ".xml") || (first != std::string::npos && text[first] == '<');
  return xml ? parse_rccl_xml(text, path) : parse_topology_text(text, path);
}

}  // namespace nbrcoll::topo
