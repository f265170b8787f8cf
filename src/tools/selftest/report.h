// nbrcoll-selftest's report: one line per check on stdout (rank 0), and at the
// end a Markdown text and a CSV file that can be pasted into bench/RESULTS.md.
// Every check is decided by all ranks together: each gives its own outcome,
// and the line says FAIL if any rank failed (with the first failing rank's
// reason), PASS if any rank passed, else SKIP (rank 0's reason).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace selftest {

enum class Status { kPass, kFail, kSkip };

struct Outcome {
  Status status = Status::kSkip;
  std::string detail;
};
inline Outcome pass(std::string d) {
  return {Status::kPass, std::move(d)};
}
inline Outcome fail(std::string d) {
  return {Status::kFail, std::move(d)};
}
inline Outcome skip(std::string d) {
  return {Status::kSkip, std::move(d)};
}

// A measured value for the CSV (rank 0 adds them).
struct Measure {
  std::string check;
  std::uint64_t size_bytes = 0;
  std::string metric;
  double value = 0;
};

class Report {
 public:
  // `context`: what every CSV row carries first (ranks, nodes, device).
  explicit Report(std::string context_csv);

  // Header lines (rank 0: printed at once and kept for the text).
  void header(const std::string& line);
  // Collective over MPI_COMM_WORLD: combines every rank's outcome, prints the line.
  Status check(const std::string& name, const Outcome& mine);
  void measure(const Measure& m);
  // A titled block of preformatted text for the Markdown report (rank 0).
  void block(const std::string& title, const std::string& text);

  [[nodiscard]] int failed() const { return failed_; }
  // Rank 0: PREFIX.md and PREFIX.csv. Returns "" or why a file could not be written.
  [[nodiscard]] std::string write(const std::string& prefix) const;
  [[nodiscard]] std::string summary() const;

 private:
  struct Line {
    std::string name;
    Status status;
    std::string detail;
  };
  std::string context_;
  int rank_ = 0;
  std::vector<std::string> header_;
  std::vector<Line> lines_;
  std::vector<Measure> measures_;
  std::vector<std::pair<std::string, std::string>> blocks_;
  int failed_ = 0;
  int passed_ = 0;
  int skipped_ = 0;
};

const char* status_name(Status s);

// Every rank's `mine`, in rank order, on rank 0 (empty elsewhere). Collective.
std::vector<std::string> gather_strings(const std::string& mine);

}  // namespace selftest
