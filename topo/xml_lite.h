// A deliberately small XML reader: elements, attributes, comments, <?..?>,
// <!DOCTYPE>, CDATA; text content is skipped. Enough for NCCL/RCCL topology
// files without a new dependency. Never throws; errors carry a line number.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nbrcoll::topo {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<XmlElement> children;
  int line = 0;  // where the start tag begins

  // The attribute's value, or nullptr.
  const std::string* attribute(std::string_view key) const;
};

// Deepest nesting accepted (callers may walk the tree recursively).
inline constexpr int kMaxXmlDepth = 128;

// Parses a document with exactly one root element. Returns "" on success,
// else "line N: what is wrong".
std::string parse_xml(std::string_view text, XmlElement& root);

}  // namespace nbrcoll::topo
