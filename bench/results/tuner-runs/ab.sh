#!/bin/bash
# auto's tuner in three builds side by side, on the tables of
# ../auto-small/run.sh (RSG 0.6 and Moore 2-D r=1, MPI_Neighbor_allgather,
# 2 x 8 and 4 x 4 emulated nodes at 1 Gbit/s, 32 KiB token buckets, every
# algorithm interleaved, ITERS iterations), RUNS runs with the builds'
# order turning from run to run, on the calibrations in CALIBRATED
# (emulated-Nnodes.machine, as ../measured-choice/run.sh makes them).
#   CALIBRATED=DIR bash bench/results/tuner-runs/ab.sh NAME=BUILD NAME=BUILD ...
# Writes ab/run-N-NAME/ (OUT: another folder) and prints ab_summary.py's table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=${OUT:-$here/ab}
arms=("$@")
for ((run = 1; run <= ${RUNS:-3}; ++run)); do
  for ((i = 0; i < ${#arms[@]}; ++i)); do
    arm=${arms[$(((i + run - 1) % ${#arms[@]}))]}
    name=${arm%%=*} build=${arm#*=}
    echo "== run $run $name" >&2
    BENCH=$build/bin/nbrcoll-bench OUT=$out/run-$run-$name CALIBRATED=$CALIBRATED BURST=32kb \
      ITERS=${ITERS:-61} SIZES=${SIZES:-1K,4K,16K,64K} bash bench/results/auto-small/run.sh >/dev/null
  done
done
/usr/bin/python3 "$here/ab_summary.py" "$out"
