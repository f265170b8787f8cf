#!/usr/bin/env bash
# The run report's cost on a call (NBRCOLL_REPORT): 1 KiB linear
# MPI_Neighbor_allgather on 2 ranks (rsg density 1: one edge each way),
# 4000 timed calls a run, report off and on alternating over PAIRS pairs (the
# order flips every pair), and what one read of the CPU's time-stamp counter
# and of steady_clock costs. Run where the ranks have a core each (the GPU
# machine: bash run.sh with KIT=path/to/gpu-kit; here: KIT unset, the build's
# nbrcoll-bench under mpirun).
#   PAIRS=10 OUT=dir bash bench/results/run-report-cost/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${OUT:-$PWD/run-report-cost}"
mkdir -p "$out"
: > "$out/order.txt"
rm -f "$out/cost.csv"
g++ -O2 "$here/clocks.cpp" -o "$out/clocks" && "$out/clocks"
bench() {
  if [[ -n "${KIT:-}" ]]; then
    bash "$KIT/gpu-run.sh" --mpirun 2 nbrcoll-bench "$@"
  else
    mpirun --oversubscribe -np 2 build/bin/nbrcoll-bench "$@"
  fi
}
for i in $(seq 1 "${PAIRS:-10}"); do
  if ((i % 2)); then order="0 1"; else order="1 0"; fi
  for r in $order; do
    if [[ $r == 1 ]]; then export NBRCOLL_REPORT="$out/report.txt"; else export NBRCOLL_REPORT=0; fi
    bench --pattern rsg --density 1 --sizes 1K --algos linear --warmup 200 --iters 4000 --no-validate \
      --csv-append "$out/cost.csv" > /dev/null
    echo "$r" >> "$out/order.txt"
  done
done
python3 - "$out" << 'PY'
import csv, statistics as s, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/cost.csv")))
order = [int(x) for x in open(f"{d}/order.txt").read().split()]
off = [float(r["median_us"]) for r, o in zip(rows, order) if o == 0]
on = [float(r["median_us"]) for r, o in zip(rows, order) if o == 1]
q = [b / a for a, b in zip(off, on)]
print("off us", off)
print("on  us", on)
print("on/off per pair", [round(x, 3) for x in q], "median", round(s.median(q), 3))
PY
