#!/usr/bin/env bash
# Runs a launch line RUNS times, each under a time limit of SECONDS: a hang
# that comes in one run of a few (a race) fails the test by the limit.
#   repeat_runs.sh RUNS SECONDS LAUNCH...
set -uo pipefail
runs=$1; seconds=$2; shift 2
for ((i = 1; i <= runs; ++i)); do
  timeout -k 5 "$seconds" "$@"
  rc=$?
  if ((rc == 124 || rc == 137)); then
    echo "FAIL: run $i of $runs did not finish in $seconds s (hung)"
    exit 1
  fi
  ((rc == 0)) || { echo "FAIL: run $i of $runs exited $rc"; exit "$rc"; }
done
echo "all $runs runs finished"
