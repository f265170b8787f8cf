#!/usr/bin/env bash
# DOLFINx's mesh and function-space set-up (bench/apps/dolfinx_setup.py) on
# 2 emulated nodes x 8 ranks, run natively and under two builds of
# libnbrcoll, the three alternating run by run; per run one line of phase
# times (s) and, for each build, how many of rank 0's creations of graphs
# of all 16 processes made the agreement (NBRCOLL_DEBUG=trace; with
# DEBUG=warn no count and no trace output to slow the runs). table.py
# turns the lines into medians, ranges and paired ratios.
#   bench/results/dup-lines/ab.sh OLD_BUILD NEW_BUILD [RUNS] > ab.txt
set -euo pipefail
cd "$(dirname "$0")/../../.."
old=$(realpath "$1/lib/libnbrcoll.so") new=$(realpath "$2/lib/libnbrcoll.so") runs=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cluster=(bench/cluster/run.sh --nodes 2 --ranks-per-node 8 --rate 1gbit --)
app=(/usr/bin/python3 "$PWD/bench/apps/dolfinx_setup.py" --cells 16)
for ((r = 1; r <= runs; ++r)); do
  for mode in native old new; do
    if [[ $mode == native ]]; then
      env -u LD_PRELOAD "${cluster[@]}" "${app[@]}" > "$tmp/out" 2> /dev/null
      count=""
    else
      lib=$old
      [[ $mode == new ]] && lib=$new
      NBRCOLL_CLUSTER_MPIRUN_ARGS="-x LD_PRELOAD=$lib" NBRCOLL_TOPO=frontier NBRCOLL_DEBUG=${DEBUG:-trace} \
        "${cluster[@]}" "${app[@]}" > "$tmp/out" 2> "$tmp/err"
      count=""
      [[ ${DEBUG:-trace} == trace ]] &&
        count="agreed16=$(grep '^\[nbrcoll 0\] trace: graph setup (16 ranks' "$tmp/err" | grep -vc 'no agreement' || true)"
    fi
    echo "$mode $r $(tr '\n' ' ' < "$tmp/out")$count"
  done
done
