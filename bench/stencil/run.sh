#!/usr/bin/env bash
# The tables of bench/RESULTS.md "Stencil mini-app": 16 ranks on 2, 4 and 8
# emulated nodes at 1 Gbit/s (bench/cluster/run.sh: network namespaces,
# needs root), the C++ program in 2-D and 3-D at each node count and the
# Fortran program at 4 nodes, every algorithm interleaved in one run, the
# halo checked against its closed form after every call. auto predicts with
# the calibration of this emulated cluster (bench/results/model/).
#   bench/stencil/run.sh             BUILD=build (nbrcoll-stencil, nbrcoll-stencil-f)
#   OUT=dir ITERS=n NODES="4" ALGOS=... bench/stencil/run.sh   (NODES: the node counts, "2 4 8";
#                                                 the Fortran runs where it holds 4)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
out=${OUT:-$PWD/bench/results/stencil}
mkdir -p "$out"
export NBRCOLL_TOPO=${NBRCOLL_TOPO:-frontier}
export NBRCOLL_MACHINE=${NBRCOLL_MACHINE:-$PWD/bench/results/model/emulated-netns-1gbit.machine}
# ALGOS: the algorithms (add native-again for a control: the MPI's own
# once more, paired against native like the others).
common=(--algos "${ALGOS:-native,linear,aggregated,auto}" --warmup 2 --iters "${ITERS:-15}")
run() {  # NODES PROGRAM DIMS NAME
  local nodes=$1 program=$2 dims=$3 name=$4
  echo "== $name: $nodes nodes x $((16 / nodes)) ranks, $dims-D"
  echo "\$ bench/cluster/run.sh --nodes $nodes --ranks-per-node $((16 / nodes)) --rate 1gbit -- $program --dims $dims ${common[*]}"
  timeout 1800 bench/cluster/run.sh --nodes "$nodes" --ranks-per-node $((16 / nodes)) --rate 1gbit -- \
    "$build/bin/$program" --dims "$dims" "${common[@]}"
}
nodes_list=" ${NODES:-2 4 8} "
for nodes in $nodes_list; do
  for dims in 2 3; do
    run "$nodes" nbrcoll-stencil "$dims" cxx | tee "$out/cxx_${nodes}nodes_${dims}d.txt"
  done
done
if [[ $nodes_list == *" 4 "* ]]; then
  for dims in 2 3; do
    run 4 nbrcoll-stencil-f "$dims" fortran | tee "$out/fortran_4nodes_${dims}d.txt"
  done
fi
/usr/bin/python3 bench/stencil/summarize.py "$out" | tee "$out/summary.txt"
echo ALLDONE
