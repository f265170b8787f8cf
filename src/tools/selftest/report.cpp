#include "tools/selftest/report.h"

#include <mpi.h>

#include <cstdio>
#include <fstream>

#include "bench/core/report.h"  // csv_quote: the benchmark's CSV rules

namespace selftest {

const char* status_name(Status s) {
  static constexpr const char* kNames[] = {"PASS", "FAIL", "SKIP"};  // in the order of Status
  return kNames[static_cast<int>(s)];
}

Report::Report(std::string context_csv) : context_(std::move(context_csv)) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
}

void Report::header(const std::string& line) {
  if (rank_ != 0) return;
  header_.push_back(line);
  std::printf("# %s\n", line.c_str());
  std::fflush(stdout);
}

std::vector<std::string> gather_strings(const std::string& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> displs(lengths.size());
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    displs[r] = total;
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t r = 0; r < lengths.size(); ++r)
    out.push_back(all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(lengths[r])));
  return out;
}

Status Report::check(const std::string& name, const Outcome& mine) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int status = static_cast<int>(mine.status);
  std::vector<int> statuses(rank_ == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&status, 1, MPI_INT, statuses.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::vector<std::string> details = gather_strings(mine.detail);
  int combined = static_cast<int>(Status::kSkip);
  if (rank_ == 0) {
    // The first failing rank's reason, else the first passing rank's detail, else rank 0's.
    int chosen = -1;
    for (const Status want : {Status::kFail, Status::kPass}) {
      for (int r = 0; r < size && chosen < 0; ++r) {
        if (statuses[static_cast<std::size_t>(r)] == static_cast<int>(want)) chosen = r;
      }
      if (chosen >= 0) {
        combined = static_cast<int>(want);
        break;
      }
    }
    const int from = chosen < 0 ? 0 : chosen;
    std::string detail = details[static_cast<std::size_t>(from)];
    if (combined == static_cast<int>(Status::kFail) && size > 1)
      detail = "rank " + std::to_string(from) + ": " + detail;
    const auto s = static_cast<Status>(combined);
    lines_.push_back({name, s, detail});
    std::printf("%s %-18s %s\n", status_name(s), name.c_str(), detail.c_str());
    std::fflush(stdout);
  }
  MPI_Bcast(&combined, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const auto s = static_cast<Status>(combined);
  (s == Status::kFail ? failed_ : s == Status::kPass ? passed_ : skipped_) += 1;
  return s;
}

void Report::measure(const Measure& m) {
  if (rank_ == 0) measures_.push_back(m);
}

void Report::block(const std::string& title, const std::string& text) {
  if (rank_ == 0) blocks_.emplace_back(title, text);
}

std::string Report::summary() const {
  return std::to_string(passed_) + " passed, " + std::to_string(failed_) + " failed, " + std::to_string(skipped_) +
         " skipped";
}

std::string Report::write(const std::string& prefix) const {
  if (rank_ != 0) return "";
  using nbrbench::csv_quote;
  std::ofstream md(prefix + ".md", std::ios::trunc);
  for (const std::string& h : header_) md << "- " << h << '\n';
  md << "\n| check | result | detail |\n|---|---|---|\n";
  for (const Line& l : lines_) {
    std::string cell = l.detail;
    for (char& c : cell) c = c == '|' ? '/' : c;  // a table cell holds no bar
    md << "| " << l.name << " | " << status_name(l.status) << " | " << cell << " |\n";
  }
  md << "\n" << summary() << "\n";
  for (const auto& [title, text] : blocks_) md << "\n" << title << "\n\n```\n" << text << "```\n";
  std::ofstream csv(prefix + ".csv", std::ios::trunc);
  csv << "ranks,nodes,device,check,status,size_bytes,metric,value,detail\n";
  for (const Line& l : lines_)
    csv << context_ << ',' << l.name << ',' << status_name(l.status) << ",,,," << csv_quote(l.detail) << '\n';
  for (const Measure& m : measures_)
    csv << context_ << ',' << m.check << ",," << m.size_bytes << ',' << m.metric << ',' << m.value << ",\n";
  md.close();
  csv.close();
  if (!md || !csv) return "cannot write " + prefix + ".md / .csv";
  return "";
}

}  // namespace selftest
