#!/bin/bash
# The one-host table of bench/RESULTS.md ("One host"): 16 ranks on this
# host (no network), RSG 0.6 MPI_Neighbor_allgather, native, linear and auto
# interleaved (shuffled order), RUNS runs of ITERS iterations, one CSV each
# in OUT (default onehost-runs/), then the medians of the paired ratios
# (paired_runs.py). About 20 s a run on the 2-core build machine.
#   RUNS=6 ITERS=15 bash bench/results/side-by-side/onehost.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
O=${OUT:-$here/onehost-runs}
mkdir -p "$O"
for ((run = 1; run <= ${RUNS:-6}; run++)); do
  NBRCOLL_TOPO=frontier NBRCOLL_MACHINE=$PWD/bench/results/model/onehost-2x8.machine timeout 1800 \
    mpirun -np 16 --oversubscribe $([[ $(id -u) -eq 0 ]] && echo --allow-run-as-root) -x NBRCOLL_TOPO -x NBRCOLL_MACHINE \
    build/bin/nbrcoll-bench --pattern rsg --density 0.6 --sizes 1K,4K,16K,32K,64K,256K,1M,4M \
    --algos native,linear,auto --warmup 2 --iters "${ITERS:-15}" --create-reps 5 --csv "$O/run-$run.csv" > "$O/run-$run.txt"
done
python3 "$here/paired_runs.py" "$O"/run-*.csv
