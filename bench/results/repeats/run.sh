#!/bin/bash
# Issue 29 item 5: calls that repeat (the decision skipped, the last call's
# messages kept as persistent requests and started again) against the
# previous build, both beside the MPI's own. Moore 2-D r=1
# MPI_Neighbor_alltoallv at 1-64 KiB, blocking and --nonblocking, native,
# linear and auto interleaved, two benchmark builds alternating (old, new,
# old, new). WHERE: onehost-8 (8 ranks on this host, one node), cluster (2
# emulated nodes x 8 ranks at 1 Gbit/s; network namespaces, root). The
# tables' last column is the paired ratio native / algorithm (above 1:
# faster than the MPI's own).
#   run.sh OLD_BENCH NEW_BENCH     env: ROUNDS (2), ITERS (201), WHERE ("onehost-8 cluster"), OUT (here)
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
old=$1 new=$2
common=(--pattern moore --dims 2 --radius 1 --op alltoallv --sizes 1K,4K,16K,64K --algos native,linear,auto
  --warmup 5 --iters "${ITERS:-201}")
for where in ${WHERE:-onehost-8 cluster}; do
  for ((r = 1; r <= ${ROUNDS:-2}; ++r)); do
    for which in old new; do
      b=$old; [[ $which == new ]] && b=$new
      for mode in blocking nonblocking; do
        flag=(); [[ $mode == nonblocking ]] && flag=(--nonblocking)
        echo "== $which, $where, $mode, round $r"
        case $where in
          onehost-8) timeout 900 mpirun --oversubscribe --allow-run-as-root -np 8 "$b" "${common[@]}" "${flag[@]}" ;;
          cluster) timeout 900 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$b" "${common[@]}" \
            "${flag[@]}" ;;
        esac 2>&1 | grep -v 'done (' | sed -n '/Algo  *Median/,/^$/p'
      done
    done
  done
done 2>&1 | tee "${OUT:-$here}/ab-${WHERE:-all}.txt" | grep -E "^==|linear|auto" | awk '{print}'
