// What both stencil programs (C++ and Fortran) share besides MPI: choosing
// nbrcoll's algorithm, the order of the algorithms in each round, and the
// table of one exchange's timings. The C functions are the Fortran
// program's hooks (bind(C)); strings end with a NUL.
#pragma once

#include <string>
#include <vector>

#include "bench/harness.h"

extern "C" {
// nbrcoll's algorithm for the calls that follow ("native", "linear",
// "aggregated", "leader", "auto"); every rank alike. 0, or 1 for an unknown name.
int nbrstencil_select_algo(const char* name);
// The algorithms' order in round `round` (0-based indices), the same on every
// rank: nbrcoll-bench's (bench/core/round_order.h).
void nbrstencil_round_order(long long round, int count, int* order);
// The table's heading (rank 0 prints it; call on rank 0 only).
void nbrstencil_print_heading(const char* program, int dims, const int* procs, const int* periodic, int ranks,
                              int nodes, int iters, const char* mpi);
// 1 while nbrcoll's calls on `comm` (a Fortran handle) still change plan by
// themselves on some rank (auto timing a size, a graph that plans late), else
// 0; the same on every rank (a reduction over MPI_COMM_WORLD).
int nbrstencil_tuning_busy(int comm);
// "# EXCHANGE n N: auto timed after CALLS untimed calls (its tuning settled)"
// (rank 0 prints it; call on rank 0 only).
void nbrstencil_print_settled(const char* exchange, int n, int calls);
// One exchange's rows, from the seconds of every algorithm in every timed
// round, already the maximum over ranks: seconds[a * iters + i].
void nbrstencil_print_rows(const char* exchange, int n, int halo, int neighbours, long long face_bytes, int algos,
                           const char* comma_separated_algos, int iters, const double* seconds);
}

namespace nbrstencil {

// The same rows from nbrcoll-bench's interleaved timing (harness.h).
void print_rows(const std::string& exchange, int n, int halo, int neighbours, long long face_bytes,
                const std::vector<std::string>& algos, const std::vector<nbrbench::Timed>& timed);

}  // namespace nbrstencil
