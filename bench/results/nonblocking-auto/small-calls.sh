#!/usr/bin/env bash
# Small nonblocking allgathers under NBRCOLL_PROGRESS=calls and mpi (the
# default): Moore 2-D r=1 MPI_Ineighbor_allgather, start then wait, native,
# linear and auto interleaved in each run, 2 emulated nodes x 8 at
# 1 Gbit/s (bench/cluster/run.sh: network namespaces, root), auto's model
# from this folder's calibration (run.sh makes it). The two modes alternate
# run by run, RUNS (3) runs each; outputs in OUT (small/), then the paired
# medians (min-max) per mode, block and algorithm (summary.py).
#   bash bench/results/nonblocking-auto/small-calls.sh
set -eu
unset NBRCOLL_ALGO
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../../.."
out=${OUT:-$here/small}
mkdir -p "$out"
export NBRCOLL_TOPO=frontier NBRCOLL_MACHINE=$here/machine_2x8
for run in $(seq 1 "${RUNS:-3}"); do
  for mode in calls mpi; do
    NBRCOLL_PROGRESS=$mode timeout 600 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- \
      "$PWD/build/bin/nbrcoll-bench" --pattern moore --dims 2 --radius 1 --nonblocking --sizes 4K,16K \
      --algos native,linear,auto --warmup 12 --iters "${ITERS:-61}" --create-reps 0 2>&1 | grep -v 'done (' |
      sed -n '1,/^# Graph creation/p' | grep -v '^# Graph creation' >"$out/moore_${mode}_$run.txt"
    echo "$mode run $run done" >&2
  done
done
python3 "$here/summary.py" "$out"  # "moore MODE" rows; the exchange-alone column
