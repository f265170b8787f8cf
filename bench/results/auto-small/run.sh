#!/bin/bash
# Issue 29 item 6: auto at small blocks (1-16 KiB) against native and every
# nbrcoll plan, RSG 0.6 and Moore (2-D, r = 1), MPI_Neighbor_allgather, 16
# ranks as 2 x 8 and 4 x 4 emulated nodes at 1 Gbit/s (network namespaces;
# root), every algorithm interleaved in one run, auto calibrated for this
# cluster. summary.txt: per size, auto's paired ratio against the better of
# native and the best nbrcoll plan (bench/results/auto-small/check.py).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
B=${BENCH:-$PWD/build/bin/nbrcoll-bench}  # BENCH: another build's benchmark
O=${OUT:-$PWD/bench/results/auto-small}
export NBRCOLL_TOPO=frontier
# MACHINE: one calibration for both layouts (as the runs of 2026-11-27 did;
# unset: each layout calibrated here, into $O/emulated-Nnodes.machine);
# CALIBRATED: a folder whose emulated-Nnodes.machine files serve instead of
# calibrating here; BURST: the links' token bucket (bench/cluster/run.sh
# --burst); SIZES: the block sizes (1K,4K,16K); RATE: the links' rate (1gbit).
burst=${BURST:-256kb}
rate=${RATE:-1gbit}
common=(--sizes "${SIZES:-1K,4K,16K}" --algos native,linear,leader,aggregated,auto --warmup 2 --iters "${ITERS:-15}")
mkdir -p "$O"
for nodes in 2 4; do
  rpn=$((16 / nodes))
  if [[ -n "${MACHINE:-}" ]]; then
    export NBRCOLL_MACHINE=$MACHINE
  elif [[ -n "${CALIBRATED:-}" ]]; then
    export NBRCOLL_MACHINE=$CALIBRATED/emulated-${nodes}nodes.machine
  else
    export NBRCOLL_MACHINE=$O/emulated-${nodes}nodes.machine
    echo "== calibrating $nodes nodes"
    timeout 600 bench/cluster/run.sh --nodes $nodes --ranks-per-node $rpn --rate "$rate" --burst "$burst" -- \
      "${B%/*}/nbrcoll-calibrate" --name "emulated-${nodes}nodes-$burst" --out "$NBRCOLL_MACHINE" >/dev/null ||
      { echo "run.sh: calibration on $nodes nodes failed" >&2; exit 1; }
  fi
  echo "== rsg, $nodes nodes"
  timeout 1800 bench/cluster/run.sh --nodes $nodes --ranks-per-node $rpn --rate "$rate" --burst "$burst" -- "$B" --pattern rsg \
    --density 0.6 "${common[@]}" --csv "$O/rsg_${nodes}nodes.csv" | tee "$O/rsg_${nodes}nodes.txt"
  echo "== moore, $nodes nodes"
  timeout 1800 bench/cluster/run.sh --nodes $nodes --ranks-per-node $rpn --rate "$rate" --burst "$burst" -- "$B" --pattern moore \
    --dims 2 --radius 1 "${common[@]}" --csv "$O/moore_${nodes}nodes.csv" | tee "$O/moore_${nodes}nodes.txt"
done
/usr/bin/python3 "$here/check.py" "$O" | tee "$O/summary.txt"
echo ALLDONE
