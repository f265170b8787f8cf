#!/bin/bash
# NBRCOLL_PROGRESS=calls against mpi (nbrcoll's progress inside Open MPI's
# progress loop, src/call/mpi_progress_hook.h) where nothing should change:
# Moore 2-D r=1 MPI_Ineighbor_alltoallv and MPI_Ineighbor_allgather, start
# then wait, native, linear, aggregated and auto interleaved, on 2 emulated
# nodes x 8 at 1 Gbit/s (bench/cluster/run.sh, root). PAIRS pairs, the
# modes alternating and the order flipped every pair; one CSV per run in
# OUT (default: here, runs/), then the medians of native / algorithm per
# mode (../side-by-side/paired_runs.py).
#   PAIRS=3 ITERS=61 bash bench/results/mpi-progress/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
O=${OUT:-$here/runs}
mkdir -p "$O"
for ((p = 0; p < ${PAIRS:-3}; p++)); do
  order=(calls mpi)
  ((p % 2)) && order=(mpi calls)
  for mode in "${order[@]}"; do
    for op in alltoallv allgather; do
      echo "== pair $p, NBRCOLL_PROGRESS=$mode, $op" >&2
      env NBRCOLL_PROGRESS="$mode" NBRCOLL_TOPO=frontier timeout 900 bench/cluster/run.sh --nodes 2 \
        --ranks-per-node 8 --rate 1gbit -- "$PWD/build/bin/nbrcoll-bench" --pattern moore --dims 2 --radius 1 \
        --op "$op" --nonblocking --sizes 1K,4K,16K,64K --algos native,linear,aggregated,auto --warmup 5 \
        --iters "${ITERS:-61}" --create-reps 0 --csv "$O/$mode-$op-$p.csv" > "$O/$mode-$op-$p.txt" 2>&1
    done
  done
done
for mode in calls mpi; do
  echo "## NBRCOLL_PROGRESS=$mode"
  python3 "$here/../side-by-side/paired_runs.py" "$O"/$mode-*.csv
done
