#!/bin/bash
# SpMM (nbrcoll-bench --pattern spmm: row-block SpMM, B's rows gathered with
# MPI_Neighbor_allgatherv) at the two link shapes of run.sh, on 2 x 8
# emulated nodes: SuiteSparse crack and delaunay_n10 (MATRICES, from
# ../shared/data/matrices where present) at k = 8, 64 and 512 columns,
# native and every plan and auto, each shape with the machine file its main
# job calibrated (RATE-run-1/machine), RUNS times alternating the shapes.
# --reuse-graph: one graph per way and k, called again and again as a
# solver would, auto timed once its plan settled.
# NODES, RPN and RATES change the cluster and shapes: the 4 x 4 run at 10
# Gbit/s was NODES=4 RPN=4 RATES=10gbit MACHINE_RUN=10gbit-4x4-run-1
# (output files then carry "-4x4").
#   bash bench/results/link-shapes/spmm.sh   (RUNS=2, ITERS=5)
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
tag=""
[[ "${NODES:-2}x${RPN:-8}" == 2x8 ]] || tag="-${NODES}x${RPN}"
matrices=${MATRICES:-"../shared/data/matrices/crack.mtx ../shared/data/matrices/delaunay_n10.mtx"}
for run in $(seq 1 "${RUNS:-2}"); do
  for rate in ${RATES:-1gbit 10gbit}; do
    for m in $matrices; do
      [[ -f $m ]] || { echo "spmm.sh: no $m" >&2; exit 2; }
      name=$(basename "$m" .mtx)
      echo "== run $run, $rate, $name"
      NBRCOLL_MACHINE="$here/${MACHINE_RUN:-$rate-run-1}/machine" NBRCOLL_TOPO=frontier \
        timeout 1200 bench/cluster/run.sh --nodes "${NODES:-2}" --ranks-per-node "${RPN:-8}" --rate "$rate" -- \
        build/bin/nbrcoll-bench --pattern spmm --matrix "$m" --cols 8,64,512 --reuse-graph \
        --algos native,linear,leader,aggregated,auto --warmup 2 --iters "${ITERS:-5}" \
        >"$here/spmm-$rate$tag-$name-run-$run.txt" 2>&1 || echo "spmm.sh: run failed (see spmm-$rate$tag-$name-run-$run.txt)"
    done
  done
done
