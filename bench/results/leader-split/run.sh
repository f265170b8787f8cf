#!/usr/bin/env bash
# The leader plan with and without the split over one leader per package
# group, side by side: nbrcoll-bench of two builds (OLD: every package group
# a leader; NEW: as many leaders as the machine model says fill a node's
# network, 1 here), RSG 0.6 and Moore 2-D r=1 allgather on NODES (2) emulated
# nodes x 16/NODES ranks at RATE (1gbit), native, linear, leader, aggregated and
# auto in each run, the builds alternating run by run, all with one machine
# file per layout.
#   RUNS=2 NODES=2 RATE=1gbit bench/results/leader-split/run.sh OLD_BUILD NEW_BUILD [OUT]
# Writes OUT/nNODES[@RATE]-{rsg,moore}-{old,new}-rRUN.csv (@RATE where it is
# not 1gbit; OUT: this folder) and
# prints summary.py's tables. About 6 minutes with RUNS=2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
old=$1 new=$2 out=${3:-$here}
runs=${RUNS:-2} nodes=${NODES:-2} rate=${RATE:-1gbit}
per_node=$((16 / nodes))
layout=n$nodes
[[ $rate == 1gbit ]] || layout+=@$rate
cluster=(--nodes "$nodes" --ranks-per-node "$per_node" --rate "$rate")
export NBRCOLL_TOPO=frontier
suffix=""
[[ $rate == 1gbit ]] || suffix=-$rate
export NBRCOLL_MACHINE=${NBRCOLL_MACHINE:-$out/machine-${nodes}x$per_node$suffix}
[[ -f $NBRCOLL_MACHINE ]] ||
  bench/cluster/run.sh "${cluster[@]}" -- "$new/bin/nbrcoll-calibrate" --name leader-split --out "$NBRCOLL_MACHINE"
for ((r = 1; r <= runs; ++r)); do
  for pattern in rsg moore; do
    args=(--pattern rsg --density 0.6)
    [[ $pattern == moore ]] && args=(--pattern moore --dims 2 --radius 1)
    for which in old new; do
      build=$old
      [[ $which == new ]] && build=$new
      bench/cluster/run.sh "${cluster[@]}" -- "$build/bin/nbrcoll-bench" "${args[@]}" --sizes 1K,4K,16K,64K,256K \
        --algos native,linear,leader,aggregated,auto --iters 15 --warmup 2 --create-reps 1 \
        --csv "$out/$layout-$pattern-$which-r$r.csv" >/dev/null 2>&1
    done
  done
done
python3 "$here/summary.py" "$out"
