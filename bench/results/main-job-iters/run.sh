#!/bin/bash
# The main job with two settings of its timed calls: JOBS pairs (default 3)
# of bench/run_main_job.sh, 2 x 8 emulated nodes (MAIN_JOB_RATE and the
# other MAIN_JOB_* settings pass through), each with its own calibration,
# alternating (the first setting turning pair by pair): old =
# MAIN_JOB_ITERS_BELOW=$OLD_ITERS (default empty: 3 timed calls at every
# size), new = $NEW_ITERS (default: the main job's own default). Writes
# OUT/{old,new}-2x8-run-N (default: here) and prints summary.py's tables.
# About 2-3.5 minutes a job on 2 cores.
#   bash bench/results/main-job-iters/run.sh [BUILD=build] [JOBS=3] [OUT=DIR] [OLD_ITERS=] [NEW_ITERS=]
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$here}
for ((j = 1; j <= ${JOBS:-3}; j++)); do
  order=(old new)
  ((j % 2 == 0)) && order=(new old)
  for setting in "${order[@]}"; do
    if [[ $setting == old ]]; then
      MAIN_JOB_ITERS_BELOW=${OLD_ITERS:-} bash "$root/bench/run_main_job.sh" "$build" "$out/old-2x8-run-$j" \
        > "$out/old-2x8-run-$j.log" 2>&1
    elif [[ -n ${NEW_ITERS:-} ]]; then
      MAIN_JOB_ITERS_BELOW=$NEW_ITERS bash "$root/bench/run_main_job.sh" "$build" "$out/new-2x8-run-$j" \
        > "$out/new-2x8-run-$j.log" 2>&1
    else
      bash "$root/bench/run_main_job.sh" "$build" "$out/new-2x8-run-$j" > "$out/new-2x8-run-$j.log" 2>&1
    fi
  done
done
/usr/bin/python3 "$here/summary.py" "$out"
