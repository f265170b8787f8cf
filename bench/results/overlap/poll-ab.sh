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
kind=${KIND:-busy} rpn=${RPN:-2} mode=${MODE:-thread-always}
ITERS=${ITERS:-41}
O=${OUT:-$here/poll-ab}
one_run() {
  echo "== pair $3, $1 build, $kind, $rpn a node, NBRCOLL_PROGRESS=$mode" >&2
  BUILD=$2 RPN=$rpn overlap_2x2 "$kind" NBRCOLL_PROGRESS="$mode" >"$O/progress_$1-${kind}-${rpn}_$3.txt"
}
alternate_builds "$1" "$2" one_run
MODES="old-$kind-$rpn new-$kind-$rpn" /usr/bin/python3 "$here/summary.py" "$O"
