#!/bin/bash
# The tables of bench/RESULTS.md "Speed-up per pattern and block size" (and its
# alltoallv, one-host and model-error tables):
# 2 emulated nodes x 8 ranks at 1 Gbit/s (network namespaces; needs root)
# and 16 ranks on one host, every algorithm interleaved in one run per pattern, with the cost model's prediction beside each median
# (machine file: the calibration of this cluster, bench/results/model/).
# Needs build/ with the benchmark (scripts/build.sh). About 10 minutes.
# (One host: 15 iterations; 7 left its 16 ranks on 2 cores within noise of 1.6x.)
set -u
cd "$(dirname "$0")/../../.."
B=$PWD/build/bin/nbrcoll-bench
O=${OUT:-$PWD/bench/results/side-by-side}  # OUT=dir: write there instead
export NBRCOLL_TOPO=frontier
export NBRCOLL_MACHINE=$PWD/bench/results/model/emulated-netns-1gbit.machine
cluster() { timeout 1800 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$B" "$@"; }
sizes=1K,4K,16K,32K,64K,256K,1M,4M
common=(--warmup 1 --iters "${ITERS:-7}" --create-reps 5)  # ITERS=n: more iterations
echo "== cluster rsg allgather"
cluster --pattern rsg --density 0.6 --sizes $sizes --algos native,linear,leader,aggregated,auto "${common[@]}" \
  --csv "$O/cluster_rsg.csv" | tee "$O/cluster_rsg.txt"
echo "== cluster moore allgather"
cluster --pattern moore --dims 2 --radius 1 --sizes $sizes --algos native,linear,leader,aggregated,auto "${common[@]}" \
  --csv "$O/cluster_moore.csv" | tee "$O/cluster_moore.txt"
echo "== cluster rsg alltoallv"
cluster --pattern rsg --density 0.6 --op alltoallv --sizes 1K,4K,16K,64K,256K,1M,4M --algos native,linear,aggregated,auto \
  "${common[@]}" --csv "$O/cluster_rsg_alltoallv.csv" | tee "$O/cluster_rsg_alltoallv.txt"
echo "== cluster moore alltoallv"
cluster --pattern moore --dims 2 --radius 1 --op alltoallv --sizes 1K,4K,16K,64K,256K,1M,4M \
  --algos native,linear,aggregated,auto "${common[@]}" --csv "$O/cluster_moore_alltoallv.csv" |
  tee "$O/cluster_moore_alltoallv.txt"
echo "== one host rsg allgather"
NBRCOLL_MACHINE=$PWD/bench/results/model/onehost-2x8.machine timeout 1800 mpirun -np 16 --oversubscribe \
  $([[ $(id -u) -eq 0 ]] && echo --allow-run-as-root) -x NBRCOLL_TOPO -x NBRCOLL_MACHINE "$B" --pattern rsg \
  --density 0.6 --sizes $sizes --algos native,linear,auto --warmup 2 --iters "${ONEHOST_ITERS:-15}" --create-reps 5 --csv "$O/onehost_rsg.csv" |
  tee "$O/onehost_rsg.txt"
echo ALLDONE
