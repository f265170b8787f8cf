#!/bin/bash
# The overlap benchmark (nbrcoll-bench --compute; common.sh's exchange):
# an idle wait between start and wait (a sleep: the core left to the other
# ranks, what 2 shared cores can show) and busy work (needs a core per rank
# to mean anything). Writes openmpi_2x2_KIND.txt here (or in $OUT).
#   bash bench/results/overlap/run.sh        [ITERS=31] [KINDS="idle busy"]
source "$(dirname "$0")/common.sh"
for kind in ${KINDS:-idle busy}; do
  echo "== Open MPI, 2 x 2 emulated nodes, 1 Gbit/s, compute $kind"
  overlap_2x2 "$kind" | tee "$O/openmpi_2x2_$kind.txt"
done
