// PCI addresses as the tools spell them: "0000:c1:00.0" from HIP/CUDA/NCCL
// XML, and the packed 64-bit id of rsmi_dev_pci_id_get.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nbrcoll::topo {

struct PciAddress {
  std::uint32_t domain = 0;
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
  std::uint32_t function = 0;
  friend bool operator==(const PciAddress&, const PciAddress&) = default;
};

// "DDDD:BB:dd.f" or "BB:dd.f" (domain 0), hex, any case, surrounding blanks
// ignored. nullopt when it is not a bus id.
std::optional<PciAddress> parse_bus_id(std::string_view s);

// ROCm SMI's packed id: (domain << 32) | (bus << 8) | (device << 3) | function;
// bits 28..31 (partition id, ROCm >= 6.1.2) and the rest are ignored.
PciAddress from_smi_pci_id(std::uint64_t id);

// A PCI class code as NCCL's XML writes it, "0x068000" (hex, any case, up to
// 6 digits). nullopt when it is not one.
std::optional<std::uint32_t> parse_pci_class(std::string_view s);

// Canonical lower-case "dddd:bb:dd.f".
std::string to_string(const PciAddress& a);

}  // namespace nbrcoll::topo
