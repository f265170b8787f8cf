#!/bin/bash
# Graph creation, nbrcoll against the MPI's own, for two nbrcoll-bench
# binaries side by side (OLD NEW; first written for f199eca), run
# alternately (old, new, old, new), 2 emulated nodes x 8 ranks at 1 Gbit/s
# (network namespaces; root) and 16 ranks on one host as 2 emulated nodes (NBRCOLL_RANKS_PER_NODE=8),
# RSG 0.6 and Moore r=1: the benchmark's creation table (create+free,
# create+2 calls+free, create+10 calls+free; pmpi and auto, 15 repetitions).
#   ab.sh OLD_BENCH NEW_BENCH
set -u
cd "$(dirname "$0")/../../.."
export NBRCOLL_TOPO=frontier
common=(--sizes 1K --algos auto --warmup 1 --iters 3 --create-reps 15)
# EXTRA: more benchmark options for both (e.g. --thread-multiple).
# shellcheck disable=SC2206
[[ -n ${EXTRA:-} ]] && common+=($EXTRA)
# WHERE (default "cluster onehost-2x8") picks the configurations; also
# onehost-8 and onehost-16: 8 or 16 ranks on one host, one node.
for round in 1 2; do
  for which in old new; do
    B=$1; [[ $which == new ]] && B=$2
    for p in "rsg --density 0.6" "moore --dims 2 --radius 1"; do
      for where in ${WHERE:-cluster onehost-2x8}; do
        echo "== $which round $round $where ${p%% *}"
        case $where in
          cluster) run=(bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit --) ;;
          onehost-2x8) run=(env NBRCOLL_RANKS_PER_NODE=8 mpirun -np 16 -x NBRCOLL_RANKS_PER_NODE) ;;
          onehost-*) run=(mpirun -np "${where#onehost-}") ;;
        esac
        [[ $where == onehost-* ]] && run+=(--oversubscribe --allow-run-as-root -x NBRCOLL_TOPO)
        # shellcheck disable=SC2086
        timeout 900 "${run[@]}" "$B" --pattern $p "${common[@]}" | sed -n '/Graph creation/,/^$/p' | grep -v "^$"
      done
    done
  done
done
