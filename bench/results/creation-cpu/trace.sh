#!/bin/bash
# Each graph set-up step's wall and CPU time (NBRCOLL_DEBUG=trace), medians
# over every rank's set-ups: 16 ranks on one host as 2 emulated nodes of 8
# (NBRCOLL_RANKS_PER_NODE), RSG 0.6, 40 creations per algorithm. Needs build/.
set -u
cd "$(dirname "$0")/../../.."
NBRCOLL_TOPO=frontier NBRCOLL_RANKS_PER_NODE=8 NBRCOLL_DEBUG=trace timeout 600 mpirun -np 16 --oversubscribe \
  $([[ $(id -u) -eq 0 ]] && echo --allow-run-as-root) -x NBRCOLL_TOPO -x NBRCOLL_RANKS_PER_NODE -x NBRCOLL_DEBUG \
  build/bin/nbrcoll-bench --pattern rsg --density 0.6 --sizes 1K --algos auto --warmup 0 --iters 1 --create-reps 40 \
  2>&1 >/dev/null | /usr/bin/python3 "$(dirname "$0")/trace_medians.py"
