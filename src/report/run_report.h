// The run report at MPI_Finalize (NBRCOLL_REPORT): every rank's counters
// (run_counters.h) gathered to world rank 0, which writes one block of text
// (report_text.h) to stderr (NBRCOLL_REPORT=1) or into the file named.
// Collective over MPI_COMM_WORLD: every rank must see the same setting, as
// for every NBRCOLL_* variable.
#pragma once

#include "report/report_text.h"

namespace nbrcoll::report {

// Before PMPI_Finalize, after the calls in flight finished; nothing when
// the report is off.
void finish(const HandoffNames& handoffs);

}  // namespace nbrcoll::report
