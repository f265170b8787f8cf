#!/bin/bash
# Is the forwarding plans' missing time at 16 KiB Open MPI's shared-memory
# rendezvous (blocks above btl_vader_eager_limit, 4 KiB by default, wait
# for their receiver before they move)? The forced plans at 1-16 KiB on
# 2 x 8 emulated nodes (1 Gbit/s, NBRCOLL_TOPO=frontier as the main job),
# with the default limit and with 32 KiB, alternating, ROUNDS rounds
# (default 3, the first setting turning round by round); the model's
# column from MACHINE (default: a main job's calibration in ../).
#   bash bench/results/model-burst-floor/eager-limit/run.sh [BUILD=build] [ROUNDS=3] [OUT=DIR]
# then: python3 bench/results/model-burst-floor/eager-limit/summary.py OUT
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$here}
export NBRCOLL_TOPO=frontier
export NBRCOLL_MACHINE=${MACHINE:-$here/../new-2x8-run-1/machine}
for ((r = 1; r <= ${ROUNDS:-3}; r++)); do
  order=(default eager32k)
  ((r % 2 == 0)) && order=(eager32k default)
  for setting in "${order[@]}"; do
    if [[ $setting == eager32k ]]; then
      export NBRCOLL_CLUSTER_MPIRUN_ARGS="--mca btl_vader_eager_limit 32768"
    else
      unset NBRCOLL_CLUSTER_MPIRUN_ARGS
    fi
    for table in rsg moore; do
      pattern=(--pattern rsg --density 0.6)
      [[ $table == moore ]] && pattern=(--pattern moore --dims 2 --radius 1)
      "$root/bench/cluster/run.sh" --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$build/bin/nbrcoll-bench" \
        "${pattern[@]}" --sizes 1K,4K,16K --algos native,linear,leader,aggregated --warmup 1 --iters 15 \
        --csv "$out/$setting-run-$r-$table.csv" > "$out/$setting-run-$r-$table.txt" 2>&1
    done
  done
done
