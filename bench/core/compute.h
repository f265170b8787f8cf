// The computation an overlap run puts between a nonblocking call's start
// and its wait (nbrcoll-bench --compute), and OSU's overlap metric.
#pragma once

namespace nbrbench {

// busy: the core kept at work (arithmetic until the time is up), as an
// application's kernel between start and wait; idle: the thread sleeps, the
// core free for whatever else runs (on 2 shared cores: the other ranks).
enum class ComputeKind { kBusy, kIdle };

struct ComputeSpec {
  bool as_native = false;  // as long as the MPI's own exchange of the size (its pure median)
  double us = 0.0;         // else this many microseconds
  ComputeKind kind = ComputeKind::kBusy;
};

// Computes for `us` microseconds; returns the microseconds it took (a sleep
// may wake late).
double compute_for(ComputeKind kind, double us);

// The share of the communication hidden behind the computation, in percent,
// as OSU's nonblocking collective benchmarks define it: 100 * (1 - (overall
// - compute) / pure), clamped to [0, 100]. `pure`: start and wait with
// nothing between; `overall`: start, compute, wait. 0 where pure is not
// positive.
double overlap_percent(double pure_us, double compute_us, double overall_us);

}  // namespace nbrbench
