#!/bin/bash
# Issue 29 item 5: nonblocking and persistent calls on the linear plan
# against the MPI's own, paired, Moore 2-D r=1 MPI_Neighbor_alltoallv at
# 1-64 KiB:
# - Open MPI, 2 emulated nodes x 8 ranks at 1 Gbit/s (network namespaces,
#   root): --nonblocking;
# - MPICH (persistent calls need MPI 4; Open MPI 4.1 is MPI 3.1): blocking,
#   --nonblocking and --persistent, 2 ranks on one host and 2 emulated nodes
#   x 1 rank (MPICH's busy polling makes more ranks than cores meaningless).
# Needs build/ and an MPICH benchmark build in $MPICH_BUILD (default
# /tmp/bmb: cmake -S . -B /tmp/bmb -DMPI_C_COMPILER=mpicc.mpich
# -DMPI_CXX_COMPILER=mpicxx.mpich -DNBRCOLL_BUILD_TESTS=OFF; cmake --build
# /tmp/bmb --target nbrcoll-bench). Writes *.txt here (or in $OUT).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
O=${OUT:-$here}
B=$PWD/build/bin/nbrcoll-bench
BM=${MPICH_BUILD:-/tmp/bmb}/bin/nbrcoll-bench-mpich
common=(--pattern moore --dims 2 --radius 1 --op alltoallv --sizes 1K,4K,16K,64K --algos native,linear)
keep() { grep -v 'done (' | sed -n '1,/^$/p'; }
echo "== Open MPI, 2 x 8 emulated nodes, nonblocking"
timeout 1200 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$B" "${common[@]}" --nonblocking \
  --warmup 5 --iters "${ITERS:-101}" | keep | tee "$O/openmpi_2x8_nonblocking.txt"
for mode in blocking nonblocking persistent; do
  flag=(); [[ $mode != blocking ]] && flag=(--$mode)
  echo "== MPICH, one host, 2 ranks, $mode"
  timeout 600 mpiexec.mpich -n 2 "$BM" "${common[@]}" "${flag[@]}" --warmup 20 --iters "${ITERS_SMALL:-2001}" 2>&1 |
    keep | tee "$O/mpich_onehost_${mode}.txt"
  echo "== MPICH, 2 x 1 emulated nodes, $mode"
  NBRCOLL_MPI=mpich timeout 1200 bench/cluster/run.sh --nodes 2 --ranks-per-node 1 --rate 1gbit -- "$BM" \
    "${common[@]}" "${flag[@]}" --warmup 20 --iters "${ITERS_SMALL:-2001}" | keep | tee "$O/mpich_2x1_${mode}.txt"
done
echo ALLDONE
