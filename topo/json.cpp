#include "topo/json.h"

#include <cstdio>

namespace nbrcoll::topo {
namespace {

void quoted(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

void array(std::string& out, const int* v, std::size_t n) {
  out += '[';
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    out += std::to_string(v[i]);
  }
  out += ']';
}

void matrix(std::string& out, const std::vector<int>& m, int n) {
  const auto un = static_cast<std::size_t>(n < 0 ? 0 : n);
  out += '[';
  for (std::size_t r = 0; r < un && (r + 1) * un <= m.size(); ++r) {
    if (r) out += ',';
    array(out, m.data() + r * un, un);
  }
  out += ']';
}

}  // namespace

std::string to_json(const NodeTopology& t) {
  std::string out = "{\"devices\":" + std::to_string(t.devices) + ",\"source\":";
  quoted(out, t.source);
  out += ",\"package\":";
  array(out, t.package.data(), t.package.size());
  out += ",\"numa\":";
  array(out, t.numa.data(), t.numa.size());
  out += ",\"links\":";
  matrix(out, t.links, t.devices);
  out += ",\"hops\":";
  matrix(out, t.hops, t.devices);
  out += '}';
  return out;
}

}  // namespace nbrcoll::topo
