#!/usr/bin/env bash
# What auto's trials read and picked, two builds side by side: nbrcoll-bench
# with auto alone, RSG 0.6 and Moore 2-D r=1 allgather, 1, 4 and 16 KiB, on
# 2 emulated nodes x 8 at 1 Gbit/s, the builds alternating run by run; each
# line is one run's "auto measured" lines (NBRCOLL_DEBUG=info): per size the
# variant settled on and the slowest rank's median trial time per variant.
#   RUNS=3 bash bench/results/tuner-runs/picks.sh OLD_BUILD NEW_BUILD > picks.txt
# Uses the leader-split folder's machine file (made there by its run.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
old=$1 new=$2
export NBRCOLL_TOPO=frontier NBRCOLL_DEBUG=info
export NBRCOLL_MACHINE=${NBRCOLL_MACHINE:-bench/results/leader-split/machine-2x8}
for ((r = 1; r <= ${RUNS:-3}; ++r)); do
  for pattern in "rsg --density 0.6" "moore --dims 2 --radius 1"; do
    for which in old new; do
      build=$old
      [[ $which == new ]] && build=$new
      # shellcheck disable=SC2086 # the pattern's words are its arguments
      picks=$(bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit -- "$build/bin/nbrcoll-bench" \
        --pattern $pattern --sizes 1K,4K,16K --algos auto --iters 5 --warmup 1 --create-reps 0 2>&1 |
        sed -n 's/.*blocks of \([0-9K]*\)-.*at call [0-9]*: \([a-z]*\).*median us a call: \(.*\))/\1 \2 [\3]/p' |
        tr '\n' ';')
      echo "$which ${pattern%% *} r$r: $picks"
    done
  done
done
