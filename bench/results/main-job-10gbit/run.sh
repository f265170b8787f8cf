#!/bin/bash
# The main job (bench/run_main_job.sh, its defaults: 15 timed calls below
# 64 KiB, 3 above) at 10 Gbit/s, on 2 x 8 and 4 x 4 emulated nodes
# alternating, JOBS rounds (default 2), each job with its own calibration.
# Writes OUT/{2x8,4x4}-run-N (default: here) and prints
# ../main-job-iters/summary.py's tables (a "setting" there is the layout).
# About 3.5 minutes a job.
#   bash bench/results/main-job-10gbit/run.sh [BUILD=build] [JOBS=2] [OUT=DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$here}
export MAIN_JOB_RATE=10gbit
for ((j = 1; j <= ${JOBS:-2}; j++)); do
  MAIN_JOB_NODES=2 MAIN_JOB_RANKS_PER_NODE=8 bash "$root/bench/run_main_job.sh" "$build" "$out/2x8-run-$j" \
    > "$out/2x8-run-$j.log" 2>&1
  MAIN_JOB_NODES=4 MAIN_JOB_RANKS_PER_NODE=4 bash "$root/bench/run_main_job.sh" "$build" "$out/4x4-run-$j" \
    > "$out/4x4-run-$j.log" 2>&1
done
/usr/bin/python3 "$root/bench/results/main-job-iters/summary.py" "$out"
