#!/bin/bash
# The main job under two builds of nbrcoll, alternating job by job: old =
# OLD_BUILD (bundles stayed on until an agreement found no size taking
# aggregated in use since the one before), new = BUILD (kept only where
# such a size was met in the last kInUseCalls calls before the
# agreement). JOBS pairs (default 2), each job with its own calibration,
# on MAIN_JOB_NODES x MAIN_JOB_RANKS_PER_NODE emulated nodes (default
# 4 x 4). Writes OUT/{old,new}-run-N (default: here) and prints
# ../main-job-iters/summary.py's tables. About 3.5 minutes a job.
#   OLD_BUILD=DIR bash bench/results/tuner-bundles/run.sh [BUILD=build] [JOBS=2] [OUT=DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
old=${OLD_BUILD:?OLD_BUILD: the build to compare with}
out=${OUT:-$here}
export MAIN_JOB_NODES=${MAIN_JOB_NODES:-4} MAIN_JOB_RANKS_PER_NODE=${MAIN_JOB_RANKS_PER_NODE:-4}
for ((j = 1; j <= ${JOBS:-2}; j++)); do
  bash "$root/bench/run_main_job.sh" "$old" "$out/old-run-$j" > "$out/old-run-$j.log" 2>&1
  bash "$root/bench/run_main_job.sh" "$build" "$out/new-run-$j" > "$out/new-run-$j.log" 2>&1
done
/usr/bin/python3 "$root/bench/results/main-job-iters/summary.py" "$out"
