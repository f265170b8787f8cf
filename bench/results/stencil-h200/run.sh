#!/usr/bin/env bash
# The stencil mini-application (bench/stencil) on one 16-core host: the GPU
# machine's CPUs through the offline kit (no GPU used), 16 ranks on 1 node
# and as 2, 4 and 8 emulated nodes (NBRCOLL_RANKS_PER_NODE: no network
# between them, so this shows nbrcoll's own cost and the plans' message
# counts, not a network's), 2-D and 3-D, every exchange and algorithm
# interleaved, the halo checked after every call.
#   here:            scripts/gpu-kit.sh --build-dir build --no-build --out gpu-kit
#   on that machine: bash bench/results/stencil-h200/run.sh gpu-kit OUT
set -uo pipefail
kit="$1"
out="$2"
mkdir -p "$out"
for rpn in 16 8 4 2; do
  for dims in 2 3; do
    name="stencil-${dims}d-rpn$rpn"
    echo "== $name" >> "$out/log.txt"
    NBRCOLL_RANKS_PER_NODE=$rpn NBRCOLL_TOPO=frontier timeout 100 bash "$kit/gpu-run.sh" --mpirun 16 nbrcoll-stencil \
      --dims "$dims" --algos native,linear,aggregated,auto --warmup 3 --iters 31 > "$out/$name.txt" 2>> "$out/log.txt"
    echo "exit $?" >> "$out/log.txt"
  done
done
