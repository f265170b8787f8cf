#!/bin/bash
# The main job with and without more timed calls at its small sizes: JOBS
# pairs (default 3) of bench/run_main_job.sh, 2 x 8 emulated nodes at
# 1 Gbit/s, each with its own calibration, alternating: old =
# MAIN_JOB_ITERS_BELOW empty (3 timed calls at every size), new = the
# default (15 below 64 KiB). Writes OUT/{old,new}-run-N (default: here) and
# prints summary.py's tables. About 3.5 minutes a job on 2 cores.
#   bash bench/results/main-job-iters/run.sh [BUILD=build] [JOBS=3] [OUT=DIR]
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$here}
for ((j = 1; j <= ${JOBS:-3}; j++)); do
  MAIN_JOB_ITERS_BELOW= bash "$root/bench/run_main_job.sh" "$build" "$out/old-run-$j" > "$out/old-run-$j.log" 2>&1
  bash "$root/bench/run_main_job.sh" "$build" "$out/new-run-$j" > "$out/new-run-$j.log" 2>&1
done
/usr/bin/python3 "$here/summary.py" "$out"
