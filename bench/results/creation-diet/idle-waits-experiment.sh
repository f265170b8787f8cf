#!/bin/bash
# The experiment of idle-waits-experiment.patch (applied to a build, then reverted): set-up waits that
# poll with PMPI_Improbe / PMPI_Test and sleep NBRCOLL_EXP_SLEEP_US after 16 empty polls.
# EXP_SLEEP_US values alternated; one host 2x8 and cluster 2x8, rsg new lists
cd "$(dirname "$0")/../../.."
export NBRCOLL_TOPO=frontier
common=(--sizes 1K --algos auto --warmup 1 --iters 3 --create-reps 15)
for round in 1 2; do
  for us in 0 20 100; do
    echo "== sleep $us round $round onehost rsg"
    NBRCOLL_EXP_SLEEP_US=$us NBRCOLL_RANKS_PER_NODE=8 timeout 900 mpirun -np 16 --oversubscribe --allow-run-as-root -x NBRCOLL_TOPO -x NBRCOLL_EXP_SLEEP_US \
        -x NBRCOLL_RANKS_PER_NODE build/bin/nbrcoll-bench --pattern rsg --density 0.6 "${common[@]}" | sed -n '/Graph creation/,/^$/p' | grep -E "create\+free"
    echo "== sleep $us round $round cluster rsg"
    NBRCOLL_EXP_SLEEP_US=$us timeout 900 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- build/bin/nbrcoll-bench --pattern rsg --density 0.6 "${common[@]}" |
        sed -n '/Graph creation/,/^$/p' | grep -E "create\+free"
  done
done
