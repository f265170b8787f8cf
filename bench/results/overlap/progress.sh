#!/bin/bash
# NBRCOLL_PROGRESS=calls against thread on the overlap benchmark (run.sh's
# exchange: Moore 2-D r=1 MPI_Ineighbor_allgather, 2 emulated nodes x 2 at
# 1 Gbit/s, an idle wait as long as the MPI's own exchange between start
# and wait), one run each, alternating, PAIRS pairs, the order flipped every
# pair. Writes progress_<mode>_<pair>.txt here (or in $OUT) and prints
# each run's overlap table.
#   bash bench/results/overlap/progress.sh      [PAIRS=3] [ITERS=31] [KIND=idle]
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
O=${OUT:-$here}
B=$PWD/build/bin/nbrcoll-bench
common=(--pattern moore --dims 2 --radius 1 --nonblocking --sizes 4K,16K,64K --algos native,linear,leader,aggregated
  --compute native --compute-kind "${KIND:-idle}" --warmup 5 --iters "${ITERS:-31}" --create-reps 0)
keep() { grep -v 'done (' | sed -n '1,/^# Cost model/p' | grep -v '^# Cost model'; }
for ((p = 0; p < ${PAIRS:-3}; p++)); do
  order=(calls thread); ((p % 2)) && order=(thread calls)
  for mode in "${order[@]}"; do
    echo "== pair $p, NBRCOLL_PROGRESS=$mode"
    NBRCOLL_PROGRESS=$mode NBRCOLL_TOPO=frontier timeout 1200 bench/cluster/run.sh --nodes 2 --ranks-per-node 2 \
      --rate 1gbit -- "$B" "${common[@]}" | keep > "$O/progress_${mode}_$p.txt"
    sed -n '/^# Overlap/,$p' "$O/progress_${mode}_$p.txt"
  done
done
