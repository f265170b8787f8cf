#!/bin/bash
# auto's measured choice (docs/DESIGN.md, "Measured choice") against the
# cost model alone: the tables of bench/results/auto-small/run.sh (RSG 0.6
# and Moore 2-D r=1, MPI_Neighbor_allgather, 16 ranks as 2 x 8 and 4 x 4
# emulated nodes at 1 Gbit/s, every algorithm interleaved), run RUNS times
# with NBRCOLL_TUNE=1 and NBRCOLL_TUNE=0 alternating, on one calibration per
# layout made first. summary.py: auto against the best other per cell, both
# arms, and the tuned arm against the untuned one.
#   bash bench/results/measured-choice/run.sh   (RUNS=3 ITERS=61 SIZES=1K,4K,16K,64K)
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
O=${OUT:-$here}
burst=32kb
mkdir -p "$O"
# Calibrated under the node model the tables run with (auto-small/run.sh),
# so that the file measures its node-internal classes too.
export NBRCOLL_TOPO=frontier
for nodes in 2 4; do
  echo "== calibrating $nodes nodes"
  timeout 600 bench/cluster/run.sh --nodes $nodes --ranks-per-node $((16 / nodes)) --rate 1gbit --burst $burst -- \
    build/bin/nbrcoll-calibrate --name "emulated-${nodes}nodes-$burst" --out "$O/emulated-${nodes}nodes.machine" \
    >/dev/null || { echo "run.sh: calibration on $nodes nodes failed" >&2; exit 1; }
done
for run in $(seq 1 "${RUNS:-3}"); do
  for tune in 1 0; do
    echo "== run $run, NBRCOLL_TUNE=$tune"
    OUT=$O/run-$run-tune$tune CALIBRATED=$O BURST=$burst ITERS=${ITERS:-61} SIZES=${SIZES:-1K,4K,16K,64K} \
      NBRCOLL_TUNE=$tune bash bench/results/auto-small/run.sh >"$O/run-$run-tune$tune.log" 2>&1
  done
done
/usr/bin/python3 "$here/summary.py" "$O" | tee "$O/summary.txt"
