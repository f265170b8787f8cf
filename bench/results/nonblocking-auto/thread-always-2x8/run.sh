#!/usr/bin/env bash
# Moore 2-D r=1 MPI_Ineighbor_allgather at 64-256 KiB, 2 emulated nodes x 8
# at 1 Gbit/s, an idle wait as long as the MPI's own exchange between start
# and wait (../run.sh's exchange), under NBRCOLL_PROGRESS=mpi and
# thread-always alternating, 2 runs each; ../machine_2x8 for auto's model.
# Writes moore_<mode>_<run>.txt here. From the repository root:
#   bash bench/results/nonblocking-auto/thread-always-2x8/run.sh
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here/../../../.."
for run in 1 2; do
  for mode in mpi thread-always; do
    NBRCOLL_PROGRESS=$mode NBRCOLL_TOPO=frontier NBRCOLL_MACHINE=$here/../machine_2x8 timeout 1200 \
      bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- \
      build/bin/nbrcoll-bench --pattern moore --dims 2 --radius 1 --nonblocking --sizes 64K,128K,256K \
      --algos native,linear,leader,auto --compute native --compute-kind idle --warmup 12 --iters 11 \
      --create-reps 0 2>&1 | grep -v 'done (' | sed -n '1,/^# Cost model/p' >"$here/moore_${mode}_$run.txt"
    echo "$mode $run done" >&2
  done
done
