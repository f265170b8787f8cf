#!/bin/bash
# Two builds' progress threads side by side on the overlap benchmark
# (common.sh's exchange): OLD and NEW (build folders), one run each,
# alternating, PAIRS pairs, the order flipped every pair; KIND idle or busy
# (the computation between start and wait), MODE the NBRCOLL_PROGRESS
# setting (thread-always), RPN ranks on each of 2 emulated nodes (2; 1: a
# core per rank on 2 cores, where `thread` starts its thread). Writes
# progress_<build>-<kind>-<rpn>_<pair>.txt in $OUT (default: here, poll-ab/)
# and prints the medians over the pairs of each build (summary.py).
#   bash bench/results/overlap/poll-ab.sh OLD_BUILD NEW_BUILD  [PAIRS=3] [KIND=busy] [MODE=thread-always] [RPN=2]
source "$(dirname "$0")/common.sh"
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
kind=${KIND:-busy} rpn=${RPN:-2} mode=${MODE:-thread-always}
O=${OUT:-$here/poll-ab}
mkdir -p "$O"
for ((p = 0; p < ${PAIRS:-3}; p++)); do
  order=(old new)
  ((p % 2)) && order=(new old)
  for b in "${order[@]}"; do
    dir=$old
    [[ $b == new ]] && dir=$new
    echo "== pair $p, $b build, $kind, $rpn a node, NBRCOLL_PROGRESS=$mode" >&2
    env NBRCOLL_PROGRESS="$mode" NBRCOLL_TOPO=frontier timeout 1200 bench/cluster/run.sh --nodes 2 \
      --ranks-per-node "$rpn" --rate 1gbit -- "$dir/bin/nbrcoll-bench" --pattern moore --dims 2 --radius 1 \
      --nonblocking --sizes 4K,16K,64K --algos native,linear,leader,aggregated --compute native \
      --compute-kind "$kind" --warmup 5 --iters "${ITERS:-41}" --create-reps 0 2>&1 |
      grep -v 'done (' | sed -n '1,/^# Cost model/p' | grep -v '^# Cost model' >"$O/progress_${b}-${kind}-${rpn}_$p.txt"
  done
done
MODES="old-$kind-$rpn new-$kind-$rpn" /usr/bin/python3 "$here/summary.py" "$O"
