#include "topo/rccl_xml.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topo/graph.h"
#include "topo/pci.h"
#include "topo/validate.h"
#include "topo/xml_lite.h"

namespace nbrcoll::topo {
namespace {

struct Link {
  std::string target;  // canonical bus id when it parses, else as written
  std::string tclass;
  int count = 1;
  int line = 0;
};

struct Gpu {
  int dev = 0;
  int numa = -1;
  std::string bus;  // canonical bus id of the enclosing <pci>, "" if none
  int line = 0;
  std::vector<Link> links;
};

std::string canonical_bus(const std::string& s) {
  if (auto a = parse_bus_id(s)) return to_string(*a);
  std::string out = s;
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::optional<int> to_int(const std::string& s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string line_msg(int line, const std::string& msg) {
  return "line " + std::to_string(line) + ": " + msg;
}

// Collects every <gpu> below `el`, with the numa / bus of its enclosing cpu / pci.
std::string collect(const XmlElement& el, int numa, const std::string& bus, std::vector<Gpu>& gpus) {
  if (el.name == "cpu") {
    if (const std::string* v = el.attribute("numaid")) {
      const auto n = to_int(*v);
      if (!n || *n < -1) return line_msg(el.line, "<cpu numaid=\"" + *v + "\"> is not a NUMA id");
      numa = *n;
    }
  }
  std::string my_bus = bus;
  if (el.name == "pci") {
    if (const std::string* v = el.attribute("busid")) my_bus = canonical_bus(*v);
  }
  if (el.name == "gpu") {
    Gpu g;
    g.line = el.line;
    g.numa = numa;
    g.bus = my_bus;
    const std::string* dev = el.attribute("dev");
    if (!dev) return line_msg(el.line, "<gpu> has no dev attribute");
    const auto d = to_int(*dev);
    if (!d || *d < 0) return line_msg(el.line, "<gpu dev=\"" + *dev + "\"> is not a device number");
    g.dev = *d;
    for (const XmlElement& c : el.children) {
      if (c.name != "xgmi" && c.name != "nvlink") continue;
      Link l;
      l.line = c.line;
      const std::string* target = c.attribute("target");
      if (!target) return line_msg(c.line, "<" + c.name + "> has no target attribute");
      l.target = canonical_bus(*target);
      if (const std::string* tc = c.attribute("tclass")) l.tclass = *tc;
      if (const std::string* cnt = c.attribute("count")) {
        const auto n = to_int(*cnt);
        if (!n || *n < 0) return line_msg(c.line, "<" + c.name + " count=\"" + *cnt + "\"> is not a link count");
        l.count = *n;
      }
      g.links.push_back(std::move(l));
    }
    gpus.push_back(std::move(g));
  }
  for (const XmlElement& c : el.children)
    if (auto e = collect(c, numa, my_bus, gpus); !e.empty()) return e;
  return {};
}

bool starts_with(const std::string& s, std::string_view p) {
  return s.compare(0, p.size(), p) == 0;
}

std::string build(const XmlElement& root, NodeTopology& t) {
  if (root.name != "system") return line_msg(root.line, "root element is <" + root.name + ">, expected <system>");
  std::vector<Gpu> gpus;
  if (auto e = collect(root, -1, "", gpus); !e.empty()) return e;
  if (gpus.empty()) return "no <gpu> element";
  if (gpus.size() > static_cast<std::size_t>(kMaxDevices)) return "more than " + std::to_string(kMaxDevices) + " GPUs";
  std::stable_sort(gpus.begin(), gpus.end(), [](const Gpu& a, const Gpu& b) { return a.dev < b.dev; });
  const int n = static_cast<int>(gpus.size());
  std::map<std::string, int> by_bus;
  for (int i = 0; i < n; ++i) {
    const Gpu& g = gpus[static_cast<std::size_t>(i)];
    if (i > 0 && gpus[static_cast<std::size_t>(i - 1)].dev == g.dev)
      return line_msg(g.line, "a second <gpu dev=\"" + std::to_string(g.dev) + "\">");
    if (g.bus.empty()) continue;
    if (!by_bus.emplace(g.bus, i).second) return line_msg(g.line, "two GPUs under <pci busid=\"" + g.bus + "\">");
  }
  const auto un = static_cast<std::size_t>(n);
  t.devices = n;
  t.links.assign(un * un, 0);
  std::vector<int> to_switch(un, 0);
  for (std::size_t i = 0; i < un; ++i) {
    for (const Link& l : gpus[i].links) {
      if (auto it = by_bus.find(l.target); it != by_bus.end()) {
        const auto j = static_cast<std::size_t>(it->second);
        if (j == i) return line_msg(l.line, "link from a GPU to itself (target " + l.target + ")");
        t.links[i * un + j] += l.count;
      } else if (parse_pci_class(l.tclass) == 0x068000u) {
        to_switch[i] += l.count;  // NVSwitch (as NCCL: class 0x068000 exactly)
      } else if (!l.tclass.empty() && !starts_with(l.tclass, "0x03")) {
        // A CPU or bridge (0x068001: POWER9's NVLink to the CPU, which NCCL
        // treats as a CPU; 0x0604..: PCI bridges): not a GPU-GPU link.
      } else {
        return line_msg(l.line, "link target " + l.target + " is no GPU's <pci busid>");
      }
    }
  }
  for (std::size_t i = 0; i < un; ++i) {
    for (std::size_t j = 0; j < un; ++j)
      if (i != j && to_switch[i] > 0 && to_switch[j] > 0) t.links[i * un + j] += std::min(to_switch[i], to_switch[j]);
  }
  t.hops = hops_from_links(n, t.links);
  t.package = packages_from_links(n, t.links);
  t.numa.clear();
  for (const Gpu& g : gpus) t.numa.push_back(g.numa);
  return validate_topology(t);
}

}  // namespace

LoadResult parse_rccl_xml(std::string_view text, std::string_view origin) {
  LoadResult r;
  XmlElement root;
  std::string err = parse_xml(text, root);
  NodeTopology t;
  if (err.empty()) err = build(root, t);
  if (!err.empty()) {
    r.topology = flat_topology(1);
    r.error = std::string(origin) + ": " + err;
    return r;
  }
  t.source = "xml:" + std::string(origin);
  r.topology = std::move(t);
  return r;
}

}  // namespace nbrcoll::topo
