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
ITERS=${ITERS:-41}
O=${OUT:-$here/poll-ab}
for ((p = 0; p < ${PAIRS:-3}; p++)); do
  order=(old new)
  ((p % 2)) && order=(new old)
  for b in "${order[@]}"; do
    dir=$old
    [[ $b == new ]] && dir=$new
    echo "== pair $p, $b build, $kind, $rpn a node, NBRCOLL_PROGRESS=$mode" >&2
    BUILD=$dir RPN=$rpn overlap_2x2 "$kind" NBRCOLL_PROGRESS="$mode" >"$O/progress_${b}-${kind}-${rpn}_$p.txt"
  done
done
MODES="old-$kind-$rpn new-$kind-$rpn" /usr/bin/python3 "$here/summary.py" "$O"
