// The run report's text from every rank's counters: one block of lines,
// each beginning "nbrcoll report: ". Pure (no MPI): run_report.cpp gathers
// the counters and writes the text.
#pragma once

#include <string>
#include <vector>

#include "report/run_counters.h"

namespace nbrcoll::report {

// The words of each hand-off reason (call/decision.h: handoff_text), by
// index; reasons past `count` print as their number.
struct HandoffNames {
  const char* const* names = nullptr;
  unsigned count = 0;
};

// `ranks[r]`: world rank r's counters. Counts and bytes are summed over
// ranks; times and peak RSS per rank are shown as min, median and max.
std::string report_text(const std::vector<RunCounters>& ranks, const HandoffNames& handoffs);

}  // namespace nbrcoll::report
