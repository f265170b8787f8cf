#!/bin/bash
# The main job with two settings of its timed calls: JOBS pairs (default 3)
# of bench/run_main_job.sh (MAIN_JOB_RATE, MAIN_JOB_NODES and the other
# MAIN_JOB_* settings pass through; 2 x 8 at 1 Gbit/s by default), each
# with its own calibration, alternating (the first setting turning pair by
# pair): old = MAIN_JOB_ITERS_BELOW=$OLD_ITERS (default empty: 3 timed
# calls at every size), new = $NEW_ITERS (default: the main job's own
# default). Writes OUT/{old,new}-NODESxRANKS-run-N (default: here) and
# prints summary.py's tables. About 2-3.5 minutes a job on 2 cores.
#   bash bench/results/main-job-iters/run.sh [BUILD=build] [JOBS=3] [OUT=DIR] [OLD_ITERS=] [NEW_ITERS=]
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$here}
layout=${MAIN_JOB_NODES:-2}x${MAIN_JOB_RANKS_PER_NODE:-8}
for ((j = 1; j <= ${JOBS:-3}; j++)); do
  order=(old new)
  ((j % 2 == 0)) && order=(new old)
  for setting in "${order[@]}"; do
    # The setting's MAIN_JOB_ITERS_BELOW; none for new without NEW_ITERS.
    iters=("MAIN_JOB_ITERS_BELOW=${OLD_ITERS:-}")
    [[ $setting == new ]] && iters=(${NEW_ITERS:+"MAIN_JOB_ITERS_BELOW=$NEW_ITERS"})
    env "${iters[@]}" bash "$root/bench/run_main_job.sh" "$build" "$out/$setting-$layout-run-$j" \
      > "$out/$setting-$layout-run-$j.log" 2>&1
  done
done
/usr/bin/python3 "$here/summary.py" "$out"
