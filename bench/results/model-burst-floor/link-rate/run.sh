#!/bin/bash
# Does leader's time at 16-64 KiB wait on the link? The forced plans on
# RSG 0.6, 2 x 8 emulated nodes (NBRCOLL_TOPO=frontier as the main job),
# with 1 and 10 Gbit/s links alternating, ROUNDS rounds (default 2); the
# model's column from MACHINE (default: a main job's 1 Gbit/s calibration).
#   bash bench/results/model-burst-floor/link-rate/run.sh [BUILD=build] [ROUNDS=2] [OUT=DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$here}
export NBRCOLL_TOPO=frontier
export NBRCOLL_MACHINE=${MACHINE:-$here/../current/new-2x8-run-2/machine}
for ((r = 1; r <= ${ROUNDS:-2}; r++)); do
  for rate in 1gbit 10gbit; do
    "$root/bench/cluster/run.sh" --nodes 2 --ranks-per-node 8 --rate "$rate" -- "$build/bin/nbrcoll-bench" \
      --pattern rsg --density 0.6 --sizes 1K,16K,64K --algos native,linear,leader,aggregated --warmup 1 \
      --iters 15 --csv "$out/$rate-run-$r.csv" > "$out/$rate-run-$r.txt" 2>&1
  done
done
for f in "$out"/*gbit-run-*.csv; do
  echo "$(basename "$f" .csv): $(awk -F, 'NR > 1 {printf "%s %s %.0f us; ", $5, $6, $7}' "$f" | tr -d '"')"
done
