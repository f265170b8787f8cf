#!/bin/bash
# Checks of what the model lacks at 16 KiB (README, "Three checks"): the
# forced plans on 2 x 8 emulated nodes (NBRCOLL_TOPO=frontier, as the main
# job), two settings alternating round by round (the first one turning),
# ROUNDS rounds, the model's column from MACHINE (default: a main job's
# 1 Gbit/s calibration in current/). CHECK:
#   eager-limit  Open MPI's btl_vader_eager_limit at its default (4 KiB)
#                and at 32 KiB, 1 Gbit/s; RSG and Moore at 1-16 KiB
#                (3 rounds); then eager-limit/summary.py OUT
#   link-rate    links at 1 and 10 Gbit/s; RSG at 1-64 KiB (2 rounds)
# Writes OUT/SETTING-run-N-TABLE.{csv,txt} (default OUT: CHECK/ here) and
# prints each run's medians.
#   bash bench/results/model-burst-floor/checks.sh CHECK [BUILD=build] [ROUNDS=N] [OUT=DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
check=${1:-}
case "$check" in
  eager-limit) settings=(default eager32k) tables=(rsg moore) sizes=1K,4K,16K rounds=${ROUNDS:-3} ;;
  link-rate) settings=(1gbit 10gbit) tables=(rsg) sizes=1K,16K,64K rounds=${ROUNDS:-2} ;;
  *) echo "checks.sh: CHECK must be eager-limit or link-rate" >&2; exit 2 ;;
esac
out=${OUT:-$here/$check}
mkdir -p "$out"
export NBRCOLL_TOPO=frontier
export NBRCOLL_MACHINE=${MACHINE:-$here/current/new-2x8-run-2/machine}
for ((r = 1; r <= rounds; r++)); do
  order=("${settings[@]}")
  ((r % 2 == 0)) && order=("${settings[1]}" "${settings[0]}")
  for setting in "${order[@]}"; do
    rate=1gbit
    unset NBRCOLL_CLUSTER_MPIRUN_ARGS
    case "$setting" in
      eager32k) export NBRCOLL_CLUSTER_MPIRUN_ARGS="--mca btl_vader_eager_limit 32768" ;;
      10gbit) rate=10gbit ;;
    esac
    for table in "${tables[@]}"; do
      pattern=(--pattern rsg --density 0.6)
      [[ $table == moore ]] && pattern=(--pattern moore --dims 2 --radius 1)
      "$root/bench/cluster/run.sh" --nodes 2 --ranks-per-node 8 --rate "$rate" -- "$build/bin/nbrcoll-bench" \
        "${pattern[@]}" --sizes "$sizes" --algos native,linear,leader,aggregated --warmup 1 --iters 15 \
        --csv "$out/$setting-run-$r-$table.csv" > "$out/$setting-run-$r-$table.txt" 2>&1
      echo "$setting-run-$r-$table: $(awk -F, 'NR > 1 {printf "%s %s %.0f us; ", $5, $6, $7}' \
        "$out/$setting-run-$r-$table.csv" | tr -d '"')"
    done
  done
done
