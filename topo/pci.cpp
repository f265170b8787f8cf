#include "topo/pci.h"

#include <cstdio>
#include <vector>

namespace nbrcoll::topo {
namespace {

// Parses 1..max_digits hex digits that make up all of `s`.
std::optional<std::uint32_t> hex(std::string_view s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) {
    std::uint32_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<std::uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<std::uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<std::uint32_t>(c - 'A' + 10);
    } else {
      return std::nullopt;
    }
    v = v * 16 + d;
  }
  return v;
}

}  // namespace

std::optional<PciAddress> parse_bus_id(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  const auto dot = s.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> parts;
  std::string_view head = s.substr(0, dot);
  for (std::size_t c; (c = head.find(':')) != std::string_view::npos; head.remove_prefix(c + 1))
    parts.push_back(head.substr(0, c));
  parts.push_back(head);
  if (parts.size() != 2 && parts.size() != 3) return std::nullopt;
  PciAddress a;
  std::size_t k = 0;
  if (parts.size() == 3) {
    auto d = hex(parts[k++], 8);
    if (!d) return std::nullopt;
    a.domain = *d;
  }
  auto bus = hex(parts[k++], 2), dev = hex(parts[k], 2), fn = hex(s.substr(dot + 1), 1);
  if (!bus || !dev || !fn || *dev > 0x1f || *fn > 7) return std::nullopt;
  a.bus = *bus;
  a.device = *dev;
  a.function = *fn;
  return a;
}

std::optional<std::uint32_t> parse_pci_class(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  return hex(s.substr(2), 6);
}

PciAddress from_smi_pci_id(std::uint64_t id) {
  PciAddress a;
  a.domain = static_cast<std::uint32_t>(id >> 32);
  a.bus = static_cast<std::uint32_t>((id >> 8) & 0xff);
  a.device = static_cast<std::uint32_t>((id >> 3) & 0x1f);
  a.function = static_cast<std::uint32_t>(id & 0x7);
  return a;
}

std::string to_string(const PciAddress& a) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", a.domain, a.bus, a.device, a.function);
  return buf;
}

}  // namespace nbrcoll::topo
