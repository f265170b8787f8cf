#!/usr/bin/env bash
# auto's nonblocking allgathers under NBRCOLL_PROGRESS=mpi (README.md): RSG
# 0.6 and Moore 2-D r=1 MPI_Ineighbor_allgather, start, an idle wait as
# long as the MPI's own exchange, wait; native, linear, leader and auto
# interleaved in each run (nbrcoll-bench --nonblocking --compute native);
# 2 emulated nodes x 8 at 1 Gbit/s (bench/cluster/run.sh: network
# namespaces, root), auto's cost model from a calibration of the same
# cluster (MACHINE: a machine file to use instead). RUNS runs (3) a
# pattern; tables in OUT (this folder); BUILD: the build folder (build).
#   bash bench/results/nonblocking-auto/run.sh
set -eu
unset NBRCOLL_ALGO
export NBRCOLL_PROGRESS=mpi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../../.."
out=${OUT:-$here}
mkdir -p "$out"
export NBRCOLL_TOPO=frontier
cluster=(--nodes "${NODES:-2}" --ranks-per-node "${RPN:-8}" --rate 1gbit)
shape=${NODES:-2}x${RPN:-8}
build=$(cd "${BUILD:-build}" && pwd)
machine=${MACHINE:-$out/machine_$shape}
[[ -n ${MACHINE:-} ]] ||
  bench/cluster/run.sh "${cluster[@]}" -- "$build/bin/nbrcoll-calibrate" --name nonblocking-auto --out "$machine" >/dev/null
for run in $(seq 1 "${RUNS:-3}"); do
  for pattern in "rsg --density 0.6" "moore --dims 2 --radius 1"; do
    name=${pattern%% *}
    # shellcheck disable=SC2086 # the pattern's options are words
    NBRCOLL_MACHINE=$machine timeout 1200 bench/cluster/run.sh "${cluster[@]}" -- \
      "$build/bin/nbrcoll-bench" --pattern $pattern --nonblocking --sizes 16K,64K,128K,256K \
      --algos native,linear,leader,auto --compute native --compute-kind idle --warmup 12 --iters "${ITERS:-11}" \
      --create-reps 0 2>&1 | grep -v 'done (' | sed -n '1,/^# Graph creation/p' | grep -v '^# Graph creation' \
      >"$out/${name}_${shape}_$run.txt"
    echo "$name $shape run $run done" >&2
  done
done
