#!/bin/bash
# The main job (bench/run_main_job.sh, 1 Gbit/s) with the machine file's
# burst and floor (BUILD) and without them (OLD_BUILD: a build from before
# they were calibrated), on 2 x 8 and 4 x 4 emulated nodes, JOBS rounds
# (default 2); in each round and layout the two builds alternate, the first
# one turning round by round. Each job calibrates with its own build.
# Writes OUT/{old,new}-{2x8,4x4}-run-N (default: here) and prints
# ../main-job-iters/summary.py's tables. About 3.5 minutes a job.
#   OLD_BUILD=DIR bash bench/results/model-burst-floor/run.sh [BUILD=build] [JOBS=2] [FIRST=1] [OUT=DIR]
# FIRST: the first round (rounds FIRST..JOBS run: more rounds later).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
old=${OLD_BUILD:?OLD_BUILD: a build without burst and floor}
out=${OUT:-$here}
for ((j = ${FIRST:-1}; j <= ${JOBS:-2}; j++)); do
  for layout in 2x8 4x4; do
    order=(new old)
    ((j % 2 == 0)) && order=(old new)
    for setting in "${order[@]}"; do
      dir=$build
      [[ $setting == old ]] && dir=$old
      MAIN_JOB_NODES=${layout%x*} MAIN_JOB_RANKS_PER_NODE=${layout#*x} \
        bash "$root/bench/run_main_job.sh" "$dir" "$out/$setting-$layout-run-$j" > "$out/$setting-$layout-run-$j.log" 2>&1
    done
  done
done
/usr/bin/python3 "$root/bench/results/main-job-iters/summary.py" "$out"
