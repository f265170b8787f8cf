#!/usr/bin/env bash
# auto's blocking alltoallv where a call's blocks span several sizes
# (nbrcoll-bench --op alltoallv: blocks 1/4 to 4/4 of the size, so one
# step's largest blocks are the next step's smallest), Moore 2-D r=1, 16
# ranks as 2 emulated nodes x 8 at 1 Gbit/s, native and every plan
# interleaved. Two builds alternate run by run (the order flipped every
# pair), under the calibrated machine file of bench/results/model and under
# the built-in Frontier model.
#   bash bench/results/mixed-calls/run.sh OLD_BUILD NEW_BUILD [OUT]   (PAIRS=3)
# summary.py OUT: auto against native and against the best per size.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
old=$1 new=$2 out=${3:-$here/data}
mkdir -p "$out"
export NBRCOLL_TOPO=frontier
for ((p = 1; p <= ${PAIRS:-3}; ++p)); do
  for model in calibrated frontier; do
    order=(old new)
    ((p % 2)) || order=(new old)
    for which in "${order[@]}"; do
      build=$old
      [[ $which == new ]] && build=$new
      machine=()
      [[ $model == calibrated ]] && machine=(env NBRCOLL_MACHINE="$root/bench/results/model/emulated-netns-1gbit.machine")
      "${machine[@]}" timeout 300 "$root/bench/cluster/run.sh" --nodes 2 --ranks-per-node 8 --rate 1gbit -- \
        "$build/bin/nbrcoll-bench" --pattern moore --dims 2 --radius 1 --op alltoallv --sizes 1K,4K,16K \
        --algos native,linear,aggregated,auto --iters 61 --create-reps 0 > "$out/$model-$which-$p.txt" 2>&1
      echo "$model $which pair $p exit $?"
    done
  done
done
/usr/bin/python3 "$here/summary.py" "$out"
