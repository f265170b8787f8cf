#!/usr/bin/env bash
# The call that plans a late-planning graph, beside its linear calls: a new
# graph's first 12 blocking 1 KiB neighbor alltoallv (calls.c: Moore 2-D on
# every process, per call the slowest rank, median over rounds) on 2
# emulated nodes x 8 ranks at 1 Gbit/s, natively and under each library
# given, alternating run by run.
#   bench/results/late-planning/run.sh [RUNS=3] LIB...
# Prints one block per run and library: call index, then us per call and
# the 12 calls' total.
set -euo pipefail
cd "$(dirname "$0")/../../.."
runs=${RUNS:-3}
prog=$(mktemp -d)/calls
trap 'rm -rf "$(dirname "$prog")"' EXIT
mpicc -O2 -Wno-stringop-overread -o "$prog" bench/results/late-planning/calls.c
for ((r = 1; r <= runs; ++r)); do
  for lib in native "$@"; do
    echo "run $r: $lib"
    if [[ $lib == native ]]; then
      env -u LD_PRELOAD bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$prog" 15 12 1024
    else
      NBRCOLL_CLUSTER_MPIRUN_ARGS="-x LD_PRELOAD=$(realpath "$lib")" NBRCOLL_TOPO=frontier \
        bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$prog" 15 12 1024
    fi
  done
done
