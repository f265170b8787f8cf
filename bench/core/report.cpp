#include "bench/core/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "bench/core/sizes.h"

namespace nbrbench {

void compute_speedups(std::vector<Row>& rows) {
  std::map<std::tuple<std::string, std::string, std::string, std::uint64_t>, double> native;
  for (const Row& r : rows)
    if (r.algo == "native") native[{r.pattern, r.params, r.op, r.size_bytes}] = r.us.median;
  for (Row& r : rows) {
    auto it = native.find({r.pattern, r.params, r.op, r.size_bytes});
    if (it != native.end() && r.us.median > 0.0) r.speedup = it->second / r.us.median;
  }
}

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::pair<std::string, std::string> mpi_name_and_version(const std::string& library_version) {
  const std::string first = library_version.substr(0, library_version.find('\n'));
  std::vector<std::string> words;
  std::string word;
  for (const char c : first + ' ') {
    if (c == ' ' || c == '\t' || c == ',') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  std::string name, version;
  for (const std::string& w : words) {
    const std::size_t digit = w[0] == 'v' || w[0] == 'V' ? 1 : 0;
    if (w.size() > digit && std::isdigit(static_cast<unsigned char>(w[digit]))) {
      version = w.substr(digit);
      break;
    }
    if (w == "Version:" || w == "version") continue;
    name += (name.empty() ? "" : " ") + w;
  }
  return {name.empty() ? "unknown" : name, version.empty() ? "unknown" : version};
}

std::string csv_quote(const std::string& field) {
  std::string out = "\"";
  for (const char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + '"';
}

void write_csv_rows(std::ostream& out, const std::vector<Row>& rows, const RunInfo& run) {
  const std::string tail = ',' + csv_quote(run.node_kind) + ',' + csv_quote(run.topology) + ',' + csv_quote(run.mpi) +
                           ',' + csv_quote(run.mpi_version) + ',' + csv_quote(run.nbrcoll_version);
  for (const Row& r : rows) {
    out << csv_quote(r.pattern) << ',' << csv_quote(r.params) << ',' << r.procs << ',' << r.nodes << ',' << r.size_bytes
        << ',' << csv_quote(r.algo) << ',' << fmt("%.3f", r.us.median) << ',' << fmt("%.3f", r.us.min) << ','
        << fmt("%.3f", r.us.max) << ',' << (r.speedup ? fmt("%.4f", *r.speedup) : std::string()) << ','
        << (r.iters > 0 ? r.iters : run.iters) << tail << ',' << csv_quote(r.op) << ','
        << (r.predicted_us ? fmt("%.3f", *r.predicted_us) : std::string()) << ','
        << (r.paired ? fmt("%.4f", *r.paired) : std::string()) << ','
        << (r.compute_us ? fmt("%.3f", *r.compute_us) : std::string()) << ','
        << (r.overlap_pct ? fmt("%.1f", *r.overlap_pct) : std::string()) << '\n';
  }
}

void print_timing_table(std::ostream& out, const std::vector<Row>& rows) {
  char line[256];
  std::snprintf(line, sizeof line, "# %-10s %-8s %14s %14s %14s %9s %9s\n", "Size(B)", "Algo", "Median(us)", "Min(us)",
                "Max(us)", "Speedup", "Paired");
  out << line;
  for (const Row& r : rows) {
    if (r.compute_us) continue;
    std::snprintf(line, sizeof line, "  %-10s %-8s %14.2f %14.2f %14.2f %9s %9s\n", format_size(r.size_bytes).c_str(),
                  r.algo.c_str(), r.us.median, r.us.min, r.us.max, r.speedup ? fmt("%.2fx", *r.speedup).c_str() : "-",
                  r.paired ? fmt("%.2fx", *r.paired).c_str() : "-");
    out << line;
  }
}

void print_overlap_table(std::ostream& out, const std::string& compute, const std::vector<Row>& rows) {
  if (std::none_of(rows.begin(), rows.end(), [](const Row& r) { return r.compute_us.has_value(); })) return;
  out << "# Overlap: start, " << compute << ", wait; overlap = 100 * (1 - (overall - compute) / pure), "
      << "OSU's metric; paired = native's overall / this overall\n";
  char line[256];
  std::snprintf(line, sizeof line, "# %-10s %-8s %12s %12s %12s %10s %9s\n", "Size(B)", "Algo", "Pure(us)",
                "Compute(us)", "Overall(us)", "Overlap", "Paired");
  out << line;
  const std::string suffix = kComputeSuffix;
  for (const Row& r : rows) {
    if (!r.compute_us) continue;
    const std::string pure_op = r.op.substr(0, r.op.size() - std::min(r.op.size(), suffix.size()));
    const auto pure = std::find_if(rows.begin(), rows.end(), [&](const Row& p) {
      return !p.compute_us && p.op == pure_op && p.pattern == r.pattern && p.params == r.params &&
             p.size_bytes == r.size_bytes && p.algo == r.algo;
    });
    std::snprintf(line, sizeof line, "  %-10s %-8s %12s %12.2f %12.2f %9.1f%% %9s\n", format_size(r.size_bytes).c_str(),
                  r.algo.c_str(), pure == rows.end() ? "-" : fmt("%.2f", pure->us.median).c_str(), *r.compute_us,
                  r.us.median, r.overlap_pct.value_or(0.0), r.paired ? fmt("%.2fx", *r.paired).c_str() : "-");
    out << line;
  }
}

void print_model_table(std::ostream& out, const std::string& machine, const std::vector<Row>& rows) {
  out << "# Cost model (machine " << machine << ") against the measured median; error = predicted / measured - 1\n";
  char line[256];
  std::snprintf(line, sizeof line, "# %-10s %-10s %14s %14s %9s\n", "Size(B)", "Algo", "Predicted(us)", "Median(us)",
                "Error");
  out << line;
  std::vector<std::string> algos;
  std::vector<std::vector<double>> errors;
  for (const Row& r : rows) {
    if (!r.predicted_us || r.us.median <= 0) continue;
    const double error = *r.predicted_us / r.us.median - 1;
    std::snprintf(line, sizeof line, "  %-10s %-10s %14.2f %14.2f %+8.0f%%\n", format_size(r.size_bytes).c_str(),
                  r.algo.c_str(), *r.predicted_us, r.us.median, 100 * error);
    out << line;
    const auto at = std::find(algos.begin(), algos.end(), r.algo) - algos.begin();
    if (static_cast<std::size_t>(at) == algos.size()) {
      algos.push_back(r.algo);
      errors.emplace_back();
    }
    errors[static_cast<std::size_t>(at)].push_back(std::abs(error));
  }
  for (std::size_t a = 0; a < algos.size(); ++a) {
    std::snprintf(line, sizeof line, "# median |error| %-10s %7.0f%% over %zu sizes\n", algos[a].c_str(),
                  100 * summarize(errors[a]).median, errors[a].size());
    out << line;
  }
}

void print_create_table(std::ostream& out, const std::vector<CreateRow>& rows) {
  char line[256];
  std::snprintf(line, sizeof line, "# %-22s %-18s %12s %12s %12s %10s\n", "Graph creation", "Way", "Median(ms)",
                "Min(ms)", "Max(ms)", "Paired");
  out << line;
  for (const CreateRow& r : rows) {
    char paired[32] = "-";
    if (r.paired) std::snprintf(paired, sizeof paired, "%.2fx", *r.paired);
    std::snprintf(line, sizeof line, "  %-22s %-18s %12.3f %12.3f %12.3f %10s\n", r.round.c_str(), r.what.c_str(),
                  r.ms.median, r.ms.min, r.ms.max, paired);
    out << line;
  }
}

void print_traffic_table(std::ostream& out, std::uint64_t block_bytes, const std::vector<std::string>& classes,
                         const std::vector<TrafficRow>& rows, std::size_t network_class) {
  out << "# Traffic of one call at " << format_size(block_bytes)
      << " per block, summed over ranks: messages / bytes per link class\n";
  char line[512];
  std::snprintf(line, sizeof line, "# %-8s", "Algo");
  out << line;
  for (const auto& c : classes) {
    std::snprintf(line, sizeof line, " %24s", c.c_str());
    out << line;
  }
  out << '\n';
  const TrafficRow* native = nullptr;
  for (const TrafficRow& r : rows)
    if (r.algo == "native") native = &r;
  for (const TrafficRow& r : rows) {
    std::snprintf(line, sizeof line, "  %-8s", r.algo.c_str());
    out << line;
    if (!r.note.empty()) {
      out << ' ' << r.note << '\n';
      continue;
    }
    for (std::size_t c = 0; c < classes.size(); ++c) {
      std::snprintf(line, sizeof line, " %8llu / %13llu", static_cast<unsigned long long>(r.messages[c]),
                    static_cast<unsigned long long>(r.bytes[c]));
      out << line;
    }
    out << '\n';
  }
  // The link-bound speed-up: native's inter-node bytes over each algorithm's.
  if (native == nullptr || !native->note.empty()) return;
  for (const TrafficRow& r : rows) {
    if (r.algo == "native" || !r.note.empty()) continue;
    const auto nb = native->bytes[network_class], ab = r.bytes[network_class];
    if (ab == 0)
      out << "# bound " << r.algo << ": no inter-node bytes (native " << nb << ")\n";
    else
      out << "# bound " << r.algo << ": native inter-node bytes / " << r.algo
          << " inter-node bytes = " << fmt("%.3f", static_cast<double>(nb) / static_cast<double>(ab)) << '\n';
  }
}

}  // namespace nbrbench
