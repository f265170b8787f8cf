#!/bin/bash
# Per-call cost of nbrcoll's linear plan against the MPI's own
# (bench/RESULTS.md "Per-call overhead and the forwarding margin"): 2 ranks,
# Moore r=1 (8 neighbours, all the other rank), 8 B and 1 KiB, 20001
# iterations; then 16 ranks on one host, RSG 0.6, 1 and 4 KiB, 1001
# iterations; three runs each, no validation. Usage: percall.sh [BENCH]
B=${1:-build/bin/nbrcoll-bench}
root=$([[ $(id -u) -eq 0 ]] && echo --allow-run-as-root)
for i in 1 2 3; do
  mpirun -np 2 $root -x NBRCOLL_TOPO=frontier "$B" --pattern moore --dims 2 --radius 1 --sizes 8,1K \
    --algos native,linear --warmup 100 --iters 20001 --create-reps 1 --no-validate 2>&1 |
    grep -E "^\s+(8|1K)\s" | head -4 | awk '{printf "%s %s %s | ", $1, $2, $3}'
  echo
done
for i in 1 2 3; do
  mpirun -np 16 --oversubscribe $root -x NBRCOLL_TOPO=frontier "$B" --pattern rsg --density 0.6 --sizes 1K,4K \
    --algos native,linear --warmup 20 --iters 1001 --create-reps 1 --no-validate 2>&1 |
    grep -E "^\s+(1K|4K)\s" | head -4 | awk '{printf "%s %s %s | ", $1, $2, $3}'
  echo
done
