#!/bin/bash
# The main job (bench/run_main_job.sh: RSG 0.6 and Moore 2-D r=1
# MPI_Neighbor_allgather, 1K-4M, native and every plan and auto, its own
# calibration first) on 2 x 8 emulated nodes at two link shapes, RUNS times
# alternating: 1 Gbit/s links (node-internal rate several hundred times a
# rank's network share) and 10 Gbit/s (about ten times less lopsided; the
# calibration prints the ratio it measured). summary.py: per shape, table
# and size, each way's median paired speed-up over the runs, auto's ratio to
# the best, and leader's to the byte bound.
#   bash bench/results/link-shapes/run.sh   (RUNS=2)
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
for run in $(seq 1 "${RUNS:-2}"); do
  for rate in 1gbit 10gbit; do
    echo "== run $run, $rate"
    MAIN_JOB_RATE=$rate bench/run_main_job.sh build "$here/$rate-run-$run" >"$here/$rate-run-$run.log" 2>&1
    grep -E "node-internal|^   (alpha|rate)" "$here/$rate-run-$run.log"
  done
done
/usr/bin/python3 "$here/summary.py" "$here" | tee "$here/summary.txt"
