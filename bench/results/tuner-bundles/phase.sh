#!/bin/bash
# A program's 1 KiB phase, then its 16 KiB phase, under two builds of
# nbrcoll alternating run by run (old = OLD_BUILD, new = BUILD): RSG 0.6
# (PATTERN_ARGS to change), 4 x 4 emulated nodes at 1 Gbit/s, native,
# leader, aggregated and auto, 15 timed calls a size, with the machine
# file MACHINE (a main job's calibration of this layout). RUNS pairs
# (default 4). Writes OUT/{old,new}-phase-N.csv and prints, per pair and
# size, auto's paired speed-up over native against leader's and their ratio.
#   OLD_BUILD=DIR MACHINE=FILE bash bench/results/tuner-bundles/phase.sh [BUILD=build] [RUNS=4] [OUT=DIR]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${BUILD:-$root/build}
old=${OLD_BUILD:?OLD_BUILD: the build to compare with}
export NBRCOLL_MACHINE=${MACHINE:?MACHINE: a machine file of this layout} NBRCOLL_TOPO=frontier
out=${OUT:-$here}
read -r -a pattern <<< "${PATTERN_ARGS:---pattern rsg --density 0.6}"
for ((j = 1; j <= ${RUNS:-4}; j++)); do
  for side in old new; do
    b=$build; [[ $side == old ]] && b=$old
    "$root/bench/cluster/run.sh" --nodes 4 --ranks-per-node 4 --rate 1gbit -- "$b/bin/nbrcoll-bench" "${pattern[@]}" \
      --sizes 1K,16K --algos native,leader,aggregated,auto --warmup 1 --iters 15 \
      --csv "$out/$side-phase-$j.csv" > "$out/$side-phase-$j.log" 2>&1
  done
done
for f in "$out"/{old,new}-phase-*.csv; do
  awk -F, -v f="$(basename "$f" .csv)" '$6 ~ /leader|auto/ {p[$5 $6] = $19}
    END {for (s in p) if (s ~ /auto/) {z = s; sub(/"auto"/, "", z);
      printf "%s %6s auto %.2f leader %.2f auto/leader %.2f\n", f, z, p[s], p[z "\"leader\""], p[s] / p[z "\"leader\""]}}' "$f"
done | sort
