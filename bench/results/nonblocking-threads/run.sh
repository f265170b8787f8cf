#!/bin/bash
# Issue 29 item 5 under MPI_THREAD_MULTIPLE (mpi4py's default, so DOLFINx's
# scatters): MPI_Ineighbor_alltoallv + MPI_Wait on the linear plan against
# the MPI's own, Moore 2-D r=1 at 1-64 KiB, 2 emulated nodes x 8 ranks at
# 1 Gbit/s (network namespaces; root), two benchmark builds alternating,
# each started with and without --thread-multiple. Paired ratio native /
# linear per run (the tables' last column).
#   run.sh OLD_BENCH NEW_BENCH      env: ROUNDS (2), ITERS (101), OUT (here)
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
old=$1 new=$2
O=${OUT:-$here}
common=(--pattern moore --dims 2 --radius 1 --op alltoallv --sizes 1K,4K,16K,64K --algos native,linear --nonblocking
  --warmup 5 --iters "${ITERS:-101}")
for ((r = 1; r <= ${ROUNDS:-2}; ++r)); do
  for which in old new; do
    b=$old; [[ $which == new ]] && b=$new
    for tm in single multiple; do
      flag=(); [[ $tm == multiple ]] && flag=(--thread-multiple)
      echo "== $which, thread $tm, round $r"
      timeout 900 bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$b" "${common[@]}" "${flag[@]}" |
        grep -v 'done (' | sed -n '/Algo  *Median/,/^$/p'
    done
  done
done 2>&1 | tee "$O/ab.txt"
