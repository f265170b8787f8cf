#!/usr/bin/env bash
# Two builds' stencil mini-app side by side on the emulated cluster: the
# 4-node runs of bench/stencil/run.sh (C++ and Fortran, 2-D and 3-D, 4 x 4
# at 1 Gbit/s), OLD and NEW alternating, PAIRS pairs, the order flipped
# every pair; each run's tables in OUT/BUILDNAME-PAIR/, then
# bench/stencil/summarize.py over each.
#   bash bench/results/stencil-ab/ab.sh OLD_BUILD NEW_BUILD [OUT]   [PAIRS=2] [ITERS=15]
set -euo pipefail
cd "$(dirname "$0")/../../.."
old=$1 new=$2
out=${3:-$PWD/bench/results/stencil-ab}
mkdir -p "$out"
for ((p = 0; p < ${PAIRS:-2}; ++p)); do
  order=(old new)
  ((p % 2)) && order=(new old)
  for which in "${order[@]}"; do
    build=$old
    [[ $which == new ]] && build=$new
    echo "== pair $p: $which ($build)"
    BUILD=$build NODES=4 ITERS=${ITERS:-15} OUT="$out/$which-$p" bash bench/stencil/run.sh > "$out/$which-$p.log" 2>&1
    tail -4 "$out/$which-$p.log" | grep -v ALLDONE
  done
done
