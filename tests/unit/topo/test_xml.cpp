// The small XML reader and the NCCL/RCCL topology XML provider.
#include <gtest/gtest.h>

#include "tests/unit/topo/expected.h"
#include "topo/pci.h"
#include "topo/rccl_xml.h"
#include "topo/xml_lite.h"

namespace nbrcoll::topo {
namespace {

TEST(XmlLite, ElementsAttributesCommentsEntities) {
  XmlElement root;
  const std::string doc =
      "<?xml version='1.0'?>\n<!DOCTYPE x>\n<a k=\"v&amp;w\">\n <!-- <b/> -->\n <b "
      "x='1'/>text<![CDATA[<c>]]>\n"
      " <c>\n  <d/>\n </c>\n</a>\n";
  ASSERT_EQ(parse_xml(doc, root), "");
  EXPECT_EQ(root.name, "a");
  ASSERT_NE(root.attribute("k"), nullptr);
  EXPECT_EQ(*root.attribute("k"), "v&w");
  ASSERT_EQ(root.children.size(), 2u);
  EXPECT_EQ(root.children[0].name, "b");
  EXPECT_EQ(root.children[0].line, 5);
  EXPECT_EQ(root.children[1].children.at(0).name, "d");
  EXPECT_EQ(root.attribute("nope"), nullptr);
}

void expect_xml_error(const std::string& doc, const std::string& fragment) {
  XmlElement root;
  const std::string e = parse_xml(doc, root);
  EXPECT_NE(e.find(fragment), std::string::npos) << "error was: " << e;
}

TEST(XmlLite, MalformedDocuments) {
  expect_xml_error("<a>\n<b x=\"1\"\n", "line 2: unterminated tag <b");
  expect_xml_error("<a>\n<b x=\"1\n", "line 2: unterminated value of attribute 'x'");
  expect_xml_error("<a>\n<b>\n</a>", "line 3: </a> closes <b> opened at line 2");
  expect_xml_error("<a>\n<b/>\n", "unterminated element <a> opened at line 1");
  expect_xml_error("<a><!-- x </a>", "line 1: unterminated comment");
  expect_xml_error("<a x=1/>", "must be quoted");
  expect_xml_error("<a x/>", "has no '=value'");
  expect_xml_error("<a x='1' x='2'/>", "given twice");
  expect_xml_error("<a/><b/>", "a second root element <b>");
  expect_xml_error("", "no XML element found");
  expect_xml_error("</a>", "</a> closes nothing");
  expect_xml_error("< a/>", "not followed by an element name");
  expect_xml_error("<a></", "unterminated end tag");
}

TEST(XmlLite, DeepNestingIsRefused) {
  std::string doc;
  for (int i = 0; i < 10000; ++i) doc += "<a>";
  expect_xml_error(doc, "nested deeper than");
}

TEST(Pci, ParseAndPack) {
  const auto a = parse_bus_id("0000:C1:00.0");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(to_string(*a), "0000:c1:00.0");
  EXPECT_EQ(to_string(*parse_bus_id(" c6:00.1 ")), "0000:c6:00.1");
  EXPECT_FALSE(parse_bus_id("hello").has_value());
  EXPECT_FALSE(parse_bus_id("0000:c1:00").has_value());
  EXPECT_FALSE(parse_bus_id("0000:c1:00.9").has_value());
  const std::uint64_t id = (std::uint64_t{1} << 32) | (0xc1u << 8) | (2u << 3) | 1u | (3u << 28);
  EXPECT_EQ(to_string(from_smi_pci_id(id)), "0001:c1:02.1");
}

TEST(RcclXml, FrontierFile) {
  const LoadResult r = parse_rccl_xml(topo_test::frontier_xml(), "frontier.xml");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.devices, 8);
  EXPECT_EQ(r.topology.links, topo_test::kFrontierLinks);
  EXPECT_EQ(r.topology.hops, topo_test::kFrontierHops);
  EXPECT_EQ(r.topology.package, topo_test::kFrontierPackage);
  EXPECT_EQ(r.topology.numa, topo_test::kFrontierNuma);
  EXPECT_EQ(r.topology.source, "xml:frontier.xml");
}

TEST(RcclXml, DevicesOrderedByDevAndNvlinkSwitch) {
  // Two GPUs listed in reverse order, both on an NVSwitch with 18 and 12
  // links, a CPU nvlink that is ignored, no numaid.
  const std::string doc = R"(<system version="1"><cpu>
    <pci busid="0000:07:00.0"><gpu dev="1"><nvlink target="0000:c0:00.0" count="18" tclass="0x068000"/>
      <nvlink target="0000:00:00.0" count="2" tclass="0x060400"/></gpu></pci>
    <pci busid="0000:0F:00.0"><gpu dev="0"><nvlink target="0000:c0:00.0" count="12" tclass="0x068000"/></gpu></pci>
  </cpu></system>)";
  const LoadResult r = parse_rccl_xml(doc, "dgx.xml");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.links, (std::vector<int>{0, 12, 12, 0}));
  EXPECT_EQ(r.topology.hops, (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(r.topology.numa, (std::vector<int>{-1, -1}));
}

TEST(XmlLite, NumericCharacterReferences) {
  XmlElement root;
  ASSERT_EQ(parse_xml("<a d=\"x&#49;&#x32;&#X33;y\" u=\"&#xe9;&#8364;\" bad=\"&#;&#x;&#12z;&#0;\"/>", root), "");
  EXPECT_EQ(*root.attribute("d"), "x123y");
  EXPECT_EQ(*root.attribute("u"), "\xC3\xA9\xE2\x82\xAC");  // U+00E9, U+20AC in UTF-8
  EXPECT_EQ(*root.attribute("bad"), "&#;&#x;&#12z;&#0;");   // not references: kept as written
}

TEST(Pci, ClassCodes) {
  EXPECT_EQ(parse_pci_class("0x068000"), 0x068000u);
  EXPECT_EQ(parse_pci_class("0X06800a"), 0x06800au);
  EXPECT_EQ(parse_pci_class("068000"), std::nullopt);
  EXPECT_EQ(parse_pci_class("0x0680001"), std::nullopt);
  EXPECT_EQ(parse_pci_class("0x"), std::nullopt);
}

TEST(RcclXml, SummitPower9NvlinkBridgeIsACpuNotAnNvswitch) {
  // A Summit node as NCCL dumps it: two POWER9 sockets with three V100 each;
  // every GPU has 2 NVLinks to each GPU of its socket and 2 to its CPU
  // through the NVLink bridge, class 0x068001 (a CPU for NCCL). Were the
  // bridge an NVSwitch, all six GPUs would look linked.
  std::string doc = "<system version=\"1\">";
  for (int socket = 0; socket < 2; ++socket) {
    doc += "<cpu numaid=\"" + std::to_string(socket) + "\" arch=\"ppc64\">";
    for (int k = 0; k < 3; ++k) {
      const int dev = 3 * socket + k;
      doc += "<pci busid=\"000" + std::to_string(4 + dev) + ":04:00.0\" class=\"0x030200\"><gpu dev=\"" +
             std::to_string(dev) + "\" sm=\"70\">";
      for (int peer = 3 * socket; peer < 3 * socket + 3; ++peer)
        if (peer != dev)
          doc += "<nvlink target=\"000" + std::to_string(4 + peer) + ":04:00.0\" count=\"2\" tclass=\"0x030200\"/>";
      doc += "<nvlink target=\"0007:00:01.0\" count=\"2\" tclass=\"0x068001\"/></gpu></pci>";
    }
    doc += "</cpu>";
  }
  doc += "</system>";
  const LoadResult r = parse_rccl_xml(doc, "summit.xml");
  ASSERT_EQ(r.error, "");
  const std::vector<int> island = {0, 2, 2, 2, 0, 2, 2, 2, 0};
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      const bool same = i / 3 == j / 3;
      EXPECT_EQ(r.topology.links[static_cast<std::size_t>(i * 6 + j)],
                same ? island[static_cast<std::size_t>((i % 3) * 3 + j % 3)] : 0)
          << i << "," << j;
    }
  EXPECT_EQ(r.topology.numa, (std::vector<int>{0, 0, 0, 1, 1, 1}));
}

TEST(RcclXml, GpusWithoutLinksAreFlat) {
  const LoadResult r = parse_rccl_xml(
      "<system><cpu numaid=\"1\"><pci busid=\"01:00.0\"><gpu dev=\"0\"/></pci>"
      "<pci busid=\"02:00.0\"><gpu dev=\"1\"/></pci></cpu></system>",
      "pcie.xml");
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.topology.links, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(r.topology.hops, (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(r.topology.package, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.topology.numa, (std::vector<int>{1, 1}));
}

void expect_rccl_error(const std::string& doc, const std::string& fragment) {
  const LoadResult r = parse_rccl_xml(doc, "t.xml");
  EXPECT_NE(r.error.find(fragment), std::string::npos) << "error was: " << r.error;
  EXPECT_EQ(r.topology.source, "flat");
}

const char* const kTwo =
    "<system><pci busid=\"0000:01:00.0\"><gpu dev=\"0\">%A</gpu></pci>"
    "<pci busid=\"0000:02:00.0\"><gpu dev=\"1\">%B</gpu></pci></system>";

std::string two(const std::string& a, const std::string& b) {
  std::string s = kTwo;
  s.replace(s.find("%A"), 2, a);
  s.replace(s.find("%B"), 2, b);
  return s;
}

TEST(RcclXml, MalformedFiles) {
  expect_rccl_error("<system>\n<gpu dev=\"0\"\n", "t.xml: line 2: unterminated tag <gpu");
  expect_rccl_error(
      "<system><pci busid=\"01:00.0\"><gpu dev=\"0\"><xgmi target=\"0000:09:00.0\"/></gpu></pci></system>",
      "link target 0000:09:00.0 is no GPU's <pci busid>");
  expect_rccl_error(two("<xgmi target=\"0000:02:00.0\" count=\"2\"/>", "<xgmi target=\"0000:01:00.0\"/>"),
                    "links[0][1]=2 but links[1][0]=1");
  expect_rccl_error(two("<xgmi target=\"0000:02:00.0\" count=\"many\"/>", ""), "is not a link count");
  expect_rccl_error(two("<xgmi count=\"1\"/>", ""), "<xgmi> has no target attribute");
  expect_rccl_error(two("<xgmi target=\"0000:01:00.0\"/>", ""), "link from a GPU to itself");
  expect_rccl_error("<system><gpu/></system>", "<gpu> has no dev attribute");
  expect_rccl_error("<system><gpu dev=\"x\"/></system>", "is not a device number");
  expect_rccl_error("<system><gpu dev=\"0\"/><gpu dev=\"0\"/></system>", "a second <gpu dev=\"0\">");
  expect_rccl_error("<system><cpu numaid=\"zz\"><gpu dev=\"0\"/></cpu></system>", "is not a NUMA id");
  expect_rccl_error("<system></system>", "no <gpu> element");
  expect_rccl_error("<nodes/>", "root element is <nodes>, expected <system>");
  expect_rccl_error("not xml at all", "no XML element found");
}

}  // namespace
}  // namespace nbrcoll::topo
