#!/bin/bash
# The alltoallv and nonblocking tables of bench/RESULTS.md (2 emulated nodes x 8
# ranks, 1 Gbit/s; needs root for the namespaces and build/ with the bench).
set -u
cd "$(dirname "$0")/../../.."
B=$PWD/build/bin/nbrcoll-bench
O=$PWD/bench/results/alltoallv-nonblocking
run() { NBRCOLL_TOPO=frontier timeout 900 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- $B "$@"; }
echo "== rsg alltoallv"; run --pattern rsg --density 0.6 --op alltoallv --sizes 1K,16K,256K,4M --algos native,linear,auto --warmup 1 --iters 5 --create-reps 1 --csv $O/rsg_alltoallv.csv
echo "== moore alltoallv"; run --pattern moore --op alltoallv --sizes 1K,16K,256K,4M --algos native,linear,auto --warmup 1 --iters 5 --create-reps 1 --csv $O/moore_alltoallv.csv
echo "== rsg ineighbor_alltoallv"; run --pattern rsg --density 0.6 --op alltoallv --nonblocking --sizes 1K,16K,256K,4M --algos native,linear,auto --warmup 1 --iters 5 --create-reps 1 --csv $O/rsg_ineighbor_alltoallv.csv
echo "== rsg ineighbor_allgather"; run --pattern rsg --density 0.6 --op allgather --nonblocking --sizes 1K,16K,256K,4M --algos native,linear,leader,auto --warmup 1 --iters 5 --create-reps 1 --csv $O/rsg_ineighbor_allgather.csv
echo ALLDONE
