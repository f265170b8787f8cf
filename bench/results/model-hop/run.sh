#!/bin/bash
# JOBS main jobs (default 3) of the current build on each layout in LAYOUTS
# (default "2x8 4x4"), each with its own calibration (which measures the
# hop), at MAIN_JOB_RATE (default 1 Gbit/s): OUT/new-NODESxRANKS-run-N
# (default OUT: here/RATE). About 2-3 minutes a job on 2 cores.
#   bash bench/results/model-hop/run.sh [BUILD=build] [JOBS=3] [LAYOUTS="2x8 4x4"] [OUT=DIR]
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$here/${MAIN_JOB_RATE:-1gbit}}
mkdir -p "$out"
for ((j = 1; j <= ${JOBS:-3}; j++)); do
  for layout in ${LAYOUTS:-2x8 4x4}; do
    MAIN_JOB_NODES=${layout%x*} MAIN_JOB_RANKS_PER_NODE=${layout#*x} \
      bash "$root/bench/run_main_job.sh" "$build" "$out/new-$layout-run-$j" > "$out/new-$layout-run-$j.log" 2>&1
  done
done
