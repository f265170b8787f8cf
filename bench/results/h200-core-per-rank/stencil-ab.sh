#!/usr/bin/env bash
# Two builds of nbrcoll-stencil side by side on the GPU machine's 16 cores
# (16 ranks as 2 emulated nodes of 8, NBRCOLL_TOPO=frontier), 2-D and 3-D,
# the builds alternating run by run, PAIRS pairs, the order flipped every
# pair. OLD and NEW are the kit's programs (bin/NAME) or paths.
#   bash bench/results/h200-core-per-rank/stencil-ab.sh KIT OUT OLD NEW
#   [PAIRS=2] [ITERS=21]
# OUT ends as one file, OUT/stencil-ab.tar.gz: the device tool brings back
# at most 8 files a call, and a run makes 4 a pair.
set -uo pipefail
kit=$(cd "$1" && pwd -P)
out=$2 old=$3 new=$4
mkdir -p "$out"
t0=$(date +%s)
for ((p = 0; p < ${PAIRS:-2}; ++p)); do
  for dims in 2 3; do
    order=(old new)
    ((p % 2)) && order=(new old)
    for which in "${order[@]}"; do
      prog=$old
      [[ $which == new ]] && prog=$new
      NBRCOLL_TOPO=frontier NBRCOLL_RANKS_PER_NODE=8 timeout 120 bash "$kit/gpu-run.sh" --mpirun 16 "$prog" \
        --dims "$dims" --algos native,linear,aggregated,auto --warmup 3 --iters "${ITERS:-21}" \
        > "$out/stencil-${dims}d-$which-$p.txt" 2>&1
      echo "[$(($(date +%s) - t0)) s] ${dims}-D $which pair $p exit $?"
    done
  done
done
tar czf "$out/stencil-ab.tar.gz" -C "$out" --remove-files $(cd "$out" && ls stencil-*d-*.txt)
