#include "report/run_report.h"

#include <mpi.h>
#include <sys/resource.h>

#include <cstdio>
#include <vector>

#include "support/config.h"
#include "support/log.h"

namespace nbrcoll::report {

namespace {

// The process's peak resident set (Linux: KiB).
std::uint64_t peak_rss_kib() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss < 0) return 0;
  return static_cast<std::uint64_t>(usage.ru_maxrss);
}

// One write, so that the block stays whole among other ranks' lines.
void write(const std::string& text) {
  const Config& c = config();
  if (c.report != ReportTo::kFile) {
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
    return;
  }
  std::FILE* f = std::fopen(c.report_path.c_str(), "w");
  if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
    log(LogLevel::kWarn, "cannot write the run report to %s", c.report_path.c_str());
  }
  if (f != nullptr) std::fclose(f);
}

}  // namespace

void finish(const HandoffNames& handoffs) {
  if (!on()) return;
  RunCounters mine = snapshot();
  mine.peak_rss_kib = peak_rss_kib();
  const HeldHandles now = held();
  for (unsigned k = 0; k < kHandleKinds; ++k) mine.held[k] = static_cast<std::uint64_t>(now.count[k]);
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<RunCounters> all(rank == 0 ? static_cast<std::size_t>(size) : 0);
  if (PMPI_Gather(&mine, kCounterWords, MPI_UINT64_T, all.data(), kCounterWords, MPI_UINT64_T, 0, MPI_COMM_WORLD) !=
      MPI_SUCCESS) {
    log(LogLevel::kWarn, "run report: gathering the counters failed");
    return;
  }
  if (rank == 0) write(report_text(all, handoffs));
}

}  // namespace nbrcoll::report
