#!/bin/bash
# Graph creation, nbrcoll against the MPI's own (bench/RESULTS.md "Graph
# creation: plan CPU"): 2 emulated nodes x 8 ranks at 1 Gbit/s (network
# namespaces; needs root) and 16 ranks on one host, RSG 0.6 and Moore r=1,
# 15 creations each. Needs build/ (scripts/build.sh). About 3 minutes.
set -u
cd "$(dirname "$0")/../../.."
B=$PWD/build/bin/nbrcoll-bench
O=${OUT:-$PWD/bench/results/creation-cpu}
export NBRCOLL_TOPO=frontier
common=(--sizes 1K --algos native,linear,auto --warmup 1 --iters 3 --create-reps 15)
for p in "rsg --density 0.6" "moore --dims 2 --radius 1"; do
  name=${p%% *}
  echo "== cluster $name"
  # shellcheck disable=SC2086
  timeout 900 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$B" --pattern $p "${common[@]}" |
    sed -n '/Graph creation/,/^$/p' | tee "$O/cluster_$name.txt"
  echo "== one host $name"
  # shellcheck disable=SC2086
  timeout 900 mpirun -np 16 --oversubscribe $([[ $(id -u) -eq 0 ]] && echo --allow-run-as-root) -x NBRCOLL_TOPO "$B" \
    --pattern $p "${common[@]}" | sed -n '/Graph creation/,/^$/p' | tee "$O/onehost_$name.txt"
done
