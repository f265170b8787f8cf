#include "topo/text_format.h"

#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "topo/graph.h"
#include "topo/validate.h"

namespace nbrcoll::topo {
namespace {

struct Line {
  int number;
  std::vector<std::string_view> words;
};

// Splits into non-empty lines of words, comments removed.
std::vector<Line> tokenize(std::string_view text) {
  std::vector<Line> lines;
  int number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++number;
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    Line l{number, {}};
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (j > i) l.words.push_back(line.substr(i, j - i));
      i = j;
    }
    if (!l.words.empty()) lines.push_back(std::move(l));
  }
  return lines;
}

std::optional<int> to_int(std::string_view w) {
  int v = 0;
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (ec != std::errc{} || p != w.data() + w.size()) return std::nullopt;
  return v;
}

bool is_keyword(std::string_view w) {
  return w == "devices" || w == "package" || w == "numa" || w == "links" || w == "hops";
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view origin) : lines_(tokenize(text)), origin_(origin) {}

  // Fills t; returns "" or an error message.
  std::string run(NodeTopology& t) {
    bool have_links = false, have_hops = false, have_package = false, have_numa = false;
    while (pos_ < lines_.size()) {
      const Line& l = lines_[pos_++];
      const std::string_view key = l.words[0];
      if (key == "devices") {
        if (n_ > 0) return at(l, "'devices' given twice");
        if (l.words.size() != 2) return at(l, "expected 'devices N'");
        const auto v = to_int(l.words[1]);
        if (!v || *v < 1 || *v > kMaxDevices) {
          return at(
              l, "'" + std::string(l.words[1]) + "' is not a device count in [1, " + std::to_string(kMaxDevices) + "]");
        }
        n_ = *v;
        continue;
      }
      if (n_ == 0) return at(l, "'devices N' must come before '" + std::string(key) + "'");
      std::string err;
      if (key == "package" || key == "numa") {
        bool& have = key == "package" ? have_package : have_numa;
        if (have) return at(l, "'" + std::string(key) + "' given twice");
        have = true;
        err = row(l, 1, key == "package" ? t.package : t.numa, std::string(key));
      } else if (key == "links" || key == "hops") {
        bool& have = key == "links" ? have_links : have_hops;
        if (have) return at(l, "'" + std::string(key) + "' given twice");
        have = true;
        if (l.words.size() != 1) return at(l, "'" + std::string(key) + "' stands alone; its rows follow");
        err = matrix(l, key == "links" ? t.links : t.hops, std::string(key));
      } else {
        return at(l, "unknown keyword '" + std::string(key) + "'");
      }
      if (!err.empty()) return err;
    }
    if (n_ == 0) return std::string(origin_) + ": no 'devices N' line";
    t.devices = n_;
    const auto nn = static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_);
    if (!have_links) t.links.assign(nn, 0);
    if (!have_hops) t.hops = hops_from_links(n_, t.links);
    if (!have_package) t.package = packages_from_links(n_, t.links);
    if (!have_numa) t.numa.assign(static_cast<std::size_t>(n_), -1);
    return {};
  }

 private:
  std::string at(const Line& l, const std::string& msg) const {
    return std::string(origin_) + ":" + std::to_string(l.number) + ": " + msg;
  }

  // Reads n_ integers from l.words[first..] into out.
  std::string row(const Line& l, std::size_t first, std::vector<int>& out, const std::string& what) {
    const std::size_t got = l.words.size() - first;
    if (got != static_cast<std::size_t>(n_))
      return at(l, what + ": expected " + std::to_string(n_) + " numbers, got " + std::to_string(got));
    for (std::size_t i = first; i < l.words.size(); ++i) {
      const auto v = to_int(l.words[i]);
      if (!v) return at(l, what + ": '" + std::string(l.words[i]) + "' is not an integer");
      out.push_back(*v);
    }
    return {};
  }

  std::string matrix(const Line& head, std::vector<int>& out, const std::string& what) {
    for (int r = 0; r < n_; ++r) {
      const bool keyword = pos_ < lines_.size() && is_keyword(lines_[pos_].words[0]);
      if (pos_ >= lines_.size() || keyword) {
        return at(pos_ < lines_.size() ? lines_[pos_] : head,
                  what + " has " + std::to_string(r) + " rows, expected " + std::to_string(n_));
      }
      if (auto e = row(lines_[pos_], 0, out, what + " row " + std::to_string(r)); !e.empty()) return e;
      ++pos_;
    }
    return {};
  }

  std::vector<Line> lines_;
  std::string_view origin_;
  std::size_t pos_ = 0;
  int n_ = 0;
};

}  // namespace

LoadResult parse_topology_text(std::string_view text, std::string_view origin) {
  LoadResult r;
  NodeTopology t;
  std::string err = Parser(text, origin).run(t);
  if (err.empty()) {
    err = validate_topology(t);
    if (!err.empty()) err = std::string(origin) + ": " + err;
  }
  if (!err.empty()) {
    r.topology = flat_topology(1);
    r.error = err;
    return r;
  }
  t.source = "file:" + std::string(origin);
  r.topology = std::move(t);
  return r;
}

}  // namespace nbrcoll::topo
