#!/usr/bin/env bash
# A plan's first calls in a process: first_calls.c on 2 emulated nodes x 8
# ranks at 1 Gbit/s, 1 KiB blocks, two graphs a process, under each forced
# plan (ALGOS), with graph 0 on nbrcoll or on the MPI's own messages
# (FIRST: nbrcoll, pmpi = FIRST_GRAPH_PMPI), with the MPI's connections made
# lazily or in MPI_Init (PRECONNECT: Open MPI's mpi_preconnect_mpi 0, 1),
# under each library given; every combination in turn, run by run.
# HOST=1: 8 ranks on this host instead, as 2 nodes of 4 to nbrcoll
# (NBRCOLL_RANKS_PER_NODE), shared memory only.
#   RUNS=3 bash bench/results/first-calls/run.sh LIB... > runs.txt
#   python3 bench/results/first-calls/summary.py runs.txt
set -euo pipefail
cd "$(dirname "$0")/../../.."
[[ $# -ge 1 ]] || { echo "usage: run.sh LIB..." >&2; exit 2; }
prog=$(mktemp -d)/first_calls
trap 'rm -rf "$(dirname "$prog")"' EXIT
mpicc -O2 -Wno-stringop-overread -o "$prog" bench/results/first-calls/first_calls.c
for ((r = 1; r <= ${RUNS:-3}; ++r)); do
  for algo in ${ALGOS:-leader aggregated linear}; do
    for first in ${FIRST:-nbrcoll pmpi}; do
      for pc in ${PRECONNECT:-0 1}; do
        i=0
        for lib in "$@"; do
          i=$((i + 1))
          env=(-x "LD_PRELOAD=$(realpath "$lib")" -x "NBRCOLL_ALGO=$algo" -x "OMPI_MCA_mpi_preconnect_mpi=$pc")
          [[ $first == pmpi ]] && env+=(-x FIRST_GRAPH_PMPI=1)
          echo "run $r lib$i $algo graph0=$first preconnect=$pc"
          if [[ -n ${HOST:-} ]]; then
            OMPI_MCA_btl=self,vader mpirun --oversubscribe --allow-run-as-root -np 8 "${env[@]}" \
              -x NBRCOLL_RANKS_PER_NODE=4 -x NBRCOLL_TOPO=frontier "$prog" 2 30 1024
          else
            NBRCOLL_CLUSTER_MPIRUN_ARGS="${env[*]}" NBRCOLL_TOPO=frontier \
              bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$prog" 2 30 1024
          fi
        done
      done
    done
  done
done
