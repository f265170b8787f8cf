#!/bin/bash
# The overlap benchmark (nbrcoll-bench --compute): Moore 2-D r=1
# MPI_Ineighbor_allgather at 4-64 KiB, 2 emulated nodes x 2 ranks at
# 1 Gbit/s (bench/cluster/run.sh: network namespaces, root), every plan
# beside the MPI's own, with computation as long as the MPI's own exchange
# between start and wait: an idle wait (a sleep: the core left to the other
# ranks, what 2 shared cores can show) and busy work (needs a core per rank
# to mean anything). Writes *.txt here (or in $OUT).
#   bash bench/results/overlap/run.sh        [ITERS=31] [KINDS="idle busy"]
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
O=${OUT:-$here}
B=$PWD/build/bin/nbrcoll-bench
common=(--pattern moore --dims 2 --radius 1 --nonblocking --sizes 4K,16K,64K --algos native,linear,leader,aggregated
  --compute native --warmup 5 --iters "${ITERS:-31}" --create-reps 0)
# The timing and overlap tables, without the progress lines.
keep() { grep -v 'done (' | sed -n '1,/^# Cost model/p' | grep -v '^# Cost model'; }
for kind in ${KINDS:-idle busy}; do
  echo "== Open MPI, 2 x 2 emulated nodes, 1 Gbit/s, compute $kind"
  NBRCOLL_TOPO=frontier timeout 1200 bench/cluster/run.sh --nodes 2 --ranks-per-node 2 --rate 1gbit -- "$B" \
    "${common[@]}" --compute-kind "$kind" | keep | tee "$O/openmpi_2x2_$kind.txt"
done
