#!/usr/bin/env bash
# Typed messages against packed ones: the stencil's Cartesian alltoallw on
# subarray types (3-D, faces of 512 B, 4.5 KiB and 32 KiB) on one host,
# native and nbrcoll's linear plan interleaved in every run (paired ratios
# native / linear), an old build (which packs) and a new one (which sends
# the types) alternating run by run.
#   OLD=old-build NEW=build [ROUNDS=3] [NPS="2 4"] bench/results/typed-alltoallw/run.sh
# Prints one line per cell: ranks, build, face size n, the paired ratio of
# each run.
set -euo pipefail
old="${OLD:?OLD=<build dir that packs>}"
new="${NEW:-build}"
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl=self,vader
for np in ${NPS:-2 4}; do
  for _ in $(seq "${ROUNDS:-3}"); do
    for which in old new; do
      dir=$old
      [[ $which == new ]] && dir=$new
      mpirun --oversubscribe --allow-run-as-root -np "$np" "$dir/bin/nbrcoll-stencil" --dims 3 --exchanges cart-w \
        --n 8,24,64 --algos native,linear --warmup 2 --iters 21 |
        awk -v w="$which" -v np="$np" '$6 == "linear" {print "np" np, w, "n=" $2, $NF}'
    done
  done
done | sort | awk '{k = $1 " " $2 " " $3; r[k] = r[k] " " $4} END {for (k in r) print k ":" r[k]}' | sort
