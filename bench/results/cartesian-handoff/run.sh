#!/usr/bin/env bash
# auto on a Cartesian grid on one host, where its calls go linear by rule
# and are handed to the MPI's own collective (docs/DESIGN.md section 5):
# the stencil mini-app's Cartesian exchanges (alltoallw on subarray types,
# alltoallv on packed faces), 3-D, faces of 512 B, 4.5 KiB and 32 KiB,
# native, auto and nbrcoll's own linear plan in one run (shuffled every
# round: paired ratios native / variant), RUNS runs.
#   [BUILD=build] [RUNS=3] [NPS="2 4"] bench/results/cartesian-handoff/run.sh
# Prints one line per cell: ranks, exchange, face size n, variant, and the
# paired ratio of each run (above 1: faster than the MPI's own).
set -euo pipefail
build="${BUILD:-build}"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader
for np in ${NPS:-2 4}; do
  for _ in $(seq "${RUNS:-3}"); do
    mpirun --oversubscribe --allow-run-as-root -np "$np" "$build/bin/nbrcoll-stencil" --dims 3 \
      --exchanges cart-w,cart-v --n 8,24,64 --algos native,auto,linear --warmup 2 --iters 21 |
      awk -v np="$np" '$6 == "auto" || $6 == "linear" {print "np" np, $1, "n=" $2, $6, $NF}'
  done
done | awk '{k = $1 " " $2 " " $3 " " $4; r[k] = r[k] " " $5} END {for (k in r) print k ":" r[k]}' | sort
