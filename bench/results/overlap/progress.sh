#!/bin/bash
# Two NBRCOLL_PROGRESS modes (MODES, default "calls thread") on the overlap
# benchmark (common.sh's exchange, an idle wait by default), one run each,
# alternating, PAIRS pairs, the order flipped every pair. Writes
# progress_<mode>_<pair>.txt here (or in $OUT; a ':' of the mode's poll
# interval, thread:US, written '-') and prints each run's overlap table. `thread` starts no thread where a host's ranks outnumber
# its cores (2 x 2 here on 2 cores); `thread-always` does.
#   bash bench/results/overlap/progress.sh      [PAIRS=3] [ITERS=31] [KIND=idle] [MODES="calls thread"]
source "$(dirname "$0")/common.sh"
for ((p = 0; p < ${PAIRS:-3}; p++)); do
  read -r -a order <<< "${MODES:-calls thread}"
  ((p % 2)) && order=("${order[1]}" "${order[0]}")
  for mode in "${order[@]}"; do
    echo "== pair $p, NBRCOLL_PROGRESS=$mode"
    overlap_2x2 "${KIND:-idle}" NBRCOLL_PROGRESS="$mode" > "$O/progress_${mode//:/-}_$p.txt"
    sed -n '/^# Overlap/,$p' "$O/progress_${mode//:/-}_$p.txt"
  done
done
