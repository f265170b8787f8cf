#include "topo/xml_lite.h"

#include <charconv>

namespace nbrcoll::topo {

const std::string* XmlElement::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

namespace {

bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}
bool space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void append_utf8(std::string& out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// "&#NN;" or "&#xNN;" at the start of v: its length, the code point in cp;
// 0 when v does not start with a valid character reference.
std::size_t char_ref(std::string_view v, unsigned long& cp) {
  if (v.size() < 4 || v[0] != '&' || v[1] != '#') return 0;
  const bool hex = v[2] == 'x' || v[2] == 'X';
  const std::size_t from = hex ? 3 : 2, semi = v.find(';');
  if (semi == std::string_view::npos || semi == from) return 0;
  const char* end = v.data() + semi;
  const auto [p, ec] = std::from_chars(v.data() + from, end, cp, hex ? 16 : 10);
  if (ec != std::errc{} || p != end || cp == 0 || cp > 0x10FFFF) return 0;
  return semi + 1;
}

std::string decode_entities(std::string_view v) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    bool done = false;
    unsigned long cp = 0;
    if (const std::size_t n = char_ref(v.substr(i), cp); n > 0) {
      append_utf8(out, cp);
      i += n;
      continue;
    }
    if (v[i] == '&') {
      for (const auto& [ent, c] : kEntities) {
        if (v.substr(i, ent.size()) == ent) {
          out += c;
          i += ent.size();
          done = true;
          break;
        }
      }
    }
    if (!done) out += v[i++];
  }
  return out;
}

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::string parse(XmlElement& root) {
    std::vector<XmlElement*> open;  // innermost last; parents never move while open
    bool have_root = false;
    while (true) {
      const std::size_t lt = s_.find('<', pos_);
      advance_to(lt == std::string_view::npos ? s_.size() : lt);
      if (lt == std::string_view::npos) break;
      if (starts("<!--")) {
        if (auto e = skip_past("-->", "comment"); !e.empty()) return e;
      } else if (starts("<![CDATA[")) {
        if (auto e = skip_past("]]>", "CDATA section"); !e.empty()) return e;
      } else if (starts("<?")) {
        if (auto e = skip_past("?>", "processing instruction"); !e.empty()) return e;
      } else if (starts("<!")) {
        if (auto e = skip_past(">", "declaration"); !e.empty()) return e;
      } else if (starts("</")) {
        const int line = line_;
        advance_to(pos_ + 2);
        const std::string name = read_name();
        skip_space();
        if (name.empty() || pos_ >= s_.size() || s_[pos_] != '>')
          return at(line, "malformed or unterminated end tag </" + name);
        advance_to(pos_ + 1);
        if (open.empty()) return at(line, "</" + name + "> closes nothing");
        if (open.back()->name != name) {
          return at(line, "</" + name + "> closes <" + open.back()->name + "> opened at line " +
                              std::to_string(open.back()->line));
        }
        open.pop_back();
      } else {
        XmlElement el;
        bool self_closing = false;
        if (auto e = start_tag(el, self_closing); !e.empty()) return e;
        XmlElement* placed = nullptr;
        if (open.empty()) {
          if (have_root) return at(el.line, "a second root element <" + el.name + ">");
          have_root = true;
          root = std::move(el);
          placed = &root;
        } else {
          open.back()->children.push_back(std::move(el));
          placed = &open.back()->children.back();
        }
        if (!self_closing) {
          if (static_cast<int>(open.size()) >= kMaxXmlDepth)
            return at(placed->line, "elements nested deeper than " + std::to_string(kMaxXmlDepth));
          open.push_back(placed);
        }
      }
    }
    if (!open.empty()) {
      return at(line_,
                "unterminated element <" + open.back()->name + "> opened at line " + std::to_string(open.back()->line));
    }
    if (!have_root) return at(line_, "no XML element found");
    return {};
  }

 private:
  static std::string at(int line, const std::string& msg) { return "line " + std::to_string(line) + ": " + msg; }

  bool starts(std::string_view p) const { return s_.substr(pos_, p.size()) == p; }

  // Moves to `to`, counting newlines.
  void advance_to(std::size_t to) {
    for (; pos_ < to && pos_ < s_.size(); ++pos_)
      if (s_[pos_] == '\n') ++line_;
  }

  void skip_space() {
    while (pos_ < s_.size() && space(s_[pos_])) advance_to(pos_ + 1);
  }

  std::string skip_past(std::string_view end, const char* what) {
    const int line = line_;
    const std::size_t e = s_.find(end, pos_ + 1);
    if (e == std::string_view::npos) return at(line, std::string("unterminated ") + what);
    advance_to(e + end.size());
    return {};
  }

  std::string read_name() {
    const std::size_t b = pos_;
    if (pos_ < s_.size() && name_start(s_[pos_]))
      while (pos_ < s_.size() && name_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(b, pos_ - b));
  }

  // At '<' of a start tag: reads name, attributes and '>' or '/>'.
  std::string start_tag(XmlElement& el, bool& self_closing) {
    el.line = line_;
    advance_to(pos_ + 1);
    el.name = read_name();
    if (el.name.empty()) return at(el.line, "'<' not followed by an element name");
    while (true) {
      skip_space();
      if (pos_ >= s_.size()) return at(el.line, "unterminated tag <" + el.name);
      if (s_[pos_] == '>') {
        advance_to(pos_ + 1);
        return {};
      }
      if (starts("/>")) {
        advance_to(pos_ + 2);
        self_closing = true;
        return {};
      }
      const int line = line_;
      std::string key = read_name();
      if (key.empty()) {
        if (s_[pos_] == '<') return at(el.line, "unterminated tag <" + el.name);
        return at(line, std::string("unexpected '") + s_[pos_] + "' in tag <" + el.name + ">");
      }
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '=')
        return at(line, "attribute '" + key + "' of <" + el.name + "> has no '=value'");
      advance_to(pos_ + 1);
      skip_space();
      if (pos_ >= s_.size() || (s_[pos_] != '"' && s_[pos_] != '\''))
        return at(line, "value of attribute '" + key + "' must be quoted");
      const char quote = s_[pos_];
      const std::size_t end = s_.find(quote, pos_ + 1);
      if (end == std::string_view::npos) return at(line, "unterminated value of attribute '" + key + "'");
      std::string value = decode_entities(s_.substr(pos_ + 1, end - pos_ - 1));
      advance_to(end + 1);
      if (el.attribute(key)) return at(line, "attribute '" + key + "' given twice in <" + el.name + ">");
      el.attributes.emplace_back(std::move(key), std::move(value));
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::string parse_xml(std::string_view text, XmlElement& root) {
  return Reader(text).parse(root);
}

}  // namespace nbrcoll::topo
