#!/usr/bin/env bash
# The call that plans a late-planning graph, beside its linear calls: a new
# graph's first 12 blocking 1 KiB neighbor alltoallv (calls.c: Moore 2-D on
# every process, per call the slowest rank, median over rounds) on 2
# emulated nodes x 8 ranks at 1 Gbit/s, natively and under each library
# given, alternating run by run.
#   bench/results/late-planning/run.sh [RUNS=3] LIB...
# MPICH_HOST=1: MPICH instead, 4 ranks on this host as 2 nodes of 2
# (NBRCOLL_RANKS_PER_NODE), shared memory only (LIBs built against MPICH;
# on the emulated cluster MPICH's finalize hang stops this program, which
# writes no finalize markers, and 1 KiB calls there take 30-90 ms).
# Prints one block per run and library: call index, then us per call and
# the 12 calls' total.
set -euo pipefail
cd "$(dirname "$0")/../../.."
runs=${RUNS:-3}
prog=$(mktemp -d)/calls
trap 'rm -rf "$(dirname "$prog")"' EXIT
if [[ -n ${MPICH_HOST:-} ]]; then
  mpicc.mpich -O2 -Wno-stringop-overread -o "$prog" bench/results/late-planning/calls.c
  for ((r = 1; r <= runs; ++r)); do
    for lib in native "$@"; do
      echo "run $r: $lib"
      preload=()
      [[ $lib != native ]] && preload=(-genv LD_PRELOAD "$(realpath "$lib")")
      UCX_TLS=self,sm NBRCOLL_TOPO=frontier NBRCOLL_RANKS_PER_NODE=2 mpiexec.mpich -n 4 "${preload[@]}" \
        "$prog" 15 12 1024
    done
  done
  exit 0
fi
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
